import { Command } from 'commander';
import { stringify } from 'yaml';
import { CliContext, itemsOf } from '../context';
import { usageError } from '../errors';
import { seg } from '../hub-client';
import { readDocument } from '../spec-file';
import { collectPairs } from '../values';
import { WorkloadResult, printSubmitted } from './workload';

/** A template as `GET /v1/templates[/:id]` answers. */
interface Template {
  templateId: string;
  namespace: string;
  description: string;
  parameters: Array<{ name: string; description: string; default?: string }>;
  spec: Record<string, unknown>;
}

/** `hcn template list|show|define|delete|instantiate`. */
export function templateCommands(ctx: CliContext): Command {
  const template = new Command('template')
    .alias('templates')
    .description('job templates: list, show, define, delete, instantiate');

  template
    .command('list')
    .alias('ls')
    .description('templates of the namespaces the token may see (GET /v1/templates)')
    .action(async (_opts, cmd: Command) => {
      const body = await ctx.hub(cmd).getAll('/v1/templates');
      ctx.table<Template>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'template', value: (t) => t.templateId },
          { header: 'namespace', value: (t) => t.namespace },
          { header: 'parameters', value: (t) => t.parameters.map((p) => p.name).join(',') },
          { header: 'description', value: (t) => t.description },
        ],
        'templates',
      );
    });

  template
    .command('show')
    .alias('get')
    .description('one template, its parameters and spec (GET /v1/templates/:id)')
    .argument('<templateId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const t = await ctx.hub(cmd).get<Template>(`/v1/templates/${seg(id)}`);
      const params = t.parameters
        .map(
          (p) =>
            `${p.name}${p.default !== undefined ? ` (default ${p.default})` : ''}${p.description ? `: ${p.description}` : ''}`,
        )
        .join('\n');
      ctx.describe(
        cmd,
        t,
        [
          ['Template', t.templateId],
          ['Namespace', t.namespace],
          ['Description', t.description],
          ['Parameters', params || null],
        ],
        `Spec:\n${stringify(t.spec)
          .trimEnd()
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n')}\n`,
      );
    });

  template
    .command('define')
    .description(
      'define a template from a YAML/JSON file ({templateId, namespace, description, parameters, spec}; ' +
        'POST /v1/templates); --update replaces an existing one (PUT /v1/templates/:id)',
    )
    .requiredOption('-f, --file <path>', 'definition file, - for standard input')
    .option('--update', 'replace the existing template of that id')
    .action(async (opts, cmd: Command) => {
      const definition = readDocument(opts.file, ctx.io.stdin);
      const hub = ctx.hub(cmd);
      let answer;
      if (opts.update) {
        if (typeof definition.templateId !== 'string') throw usageError(`${opts.file} names no templateId`);
        const { templateId, ...rest } = definition;
        answer = await hub.request({
          method: 'PUT',
          path: `/v1/templates/${seg(templateId as string)}`,
          body: rest,
        });
      } else answer = await hub.request({ method: 'POST', path: '/v1/templates', body: definition });
      const r = answer.body as { templateId?: string; revision?: number };
      ctx.print(
        cmd,
        r,
        () =>
          `template ${r.templateId ?? String(definition.templateId)} ${opts.update ? 'updated' : 'defined'}` +
          `${r.revision !== undefined ? ` (revision ${r.revision})` : ''}\n`,
      );
    });

  template
    .command('delete')
    .alias('rm')
    .description('delete a template (DELETE /v1/templates/:id)')
    .argument('<templateId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const answer = await ctx.hub(cmd).request({ method: 'DELETE', path: `/v1/templates/${seg(id)}` });
      ctx.print(cmd, answer.body, () => `template ${id} deleted\n`);
    });

  template
    .command('instantiate')
    .alias('run')
    .description('submit a workload from a template (POST /v1/templates/:id/instantiate)')
    .argument('<templateId>')
    .option('-p, --param <name=value>', 'a parameter value (repeatable)', collectPairs)
    .option('--idempotency-key <key>', 'a repeated key answers the first submission instead of a new one')
    .action(async (id: string, opts, cmd: Command) => {
      const answer = await ctx.hub(cmd).request<WorkloadResult>({
        method: 'POST',
        path: `/v1/templates/${seg(id)}/instantiate`,
        body: {
          parameters: opts.param ?? {},
          ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
        },
      });
      printSubmitted(ctx, cmd, answer.body, [answer.body]);
    });

  return template;
}
