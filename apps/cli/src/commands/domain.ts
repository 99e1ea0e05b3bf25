import { Command } from 'commander';
import { CliContext, itemsOf } from '../context';
import { usageError } from '../errors';
import { seg } from '../hub-client';
import { readDocument } from '../spec-file';
import { formatBytes, formatCpu, formatLabels } from '../table';
import { collectPairs } from '../values';

/** `GET /v1/domains` items. */
interface DomainSummary {
  domainId: string;
  nodes: { online: number; offline: number; draining: number };
  capacity: {
    cpuMillis: { total: number; allocated: number; allocatable: number };
    memoryBytes: { total: number; allocated: number; allocatable: number };
    accelerators: { total: number; allocated: number; allocatable: number };
  };
  definition: { parentId: string | null; region: string | null; policy: string | null } | null;
}

/** `GET /v1/domains/:id`. */
interface DomainDefinition {
  domainId: string;
  parentId: string | null;
  region: string | null;
  labels: Record<string, string>;
  policy: string;
  headNodeId: string | null;
  revision: number;
}

/** The definition `domain define` sends: the file's, then each flag. */
export function domainDefinition(
  id: string | undefined,
  file: Record<string, unknown> | undefined,
  opts: { parent?: string; region?: string; policy?: string; label?: Record<string, string>; head?: string },
): Record<string, unknown> {
  const definition: Record<string, unknown> = { ...file };
  if (id !== undefined) {
    if (file?.domainId !== undefined && file.domainId !== id)
      throw usageError(`the file defines domain ${String(file.domainId)}, not ${id}`);
    definition.domainId = id;
  }
  if (definition.domainId === undefined)
    throw usageError('name the domain: hcn domain define <domainId> or -f FILE');
  if (opts.parent !== undefined) definition.parentId = opts.parent === '' ? null : opts.parent;
  if (opts.region !== undefined) definition.region = opts.region === '' ? null : opts.region;
  if (opts.policy !== undefined) definition.policy = opts.policy;
  if (opts.label !== undefined) definition.labels = opts.label;
  if (opts.head !== undefined) definition.headNodeId = opts.head === '' ? null : opts.head;
  return definition;
}

/** `hcn domain list|show|define`. */
export function domainCommands(ctx: CliContext): Command {
  const domain = new Command('domain').alias('domains').description('the domain tree: list, show, define');

  domain
    .command('list')
    .alias('ls')
    .description('domains with node counts and capacity (GET /v1/domains)')
    .option('--parent <id>', 'children of this domain')
    .option('--region <region>', 'of this region')
    .action(async (opts, cmd: Command) => {
      const body = await ctx.hub(cmd).getAll('/v1/domains', { parentId: opts.parent, region: opts.region });
      ctx.table<DomainSummary>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'domain', value: (d) => d.domainId },
          { header: 'parent', value: (d) => d.definition?.parentId },
          { header: 'region', value: (d) => d.definition?.region },
          { header: 'policy', value: (d) => d.definition?.policy },
          { header: 'online', value: (d) => d.nodes.online, align: 'right' },
          { header: 'offline', value: (d) => d.nodes.offline, align: 'right' },
          { header: 'draining', value: (d) => d.nodes.draining, align: 'right' },
          {
            header: 'cpu alloc/total',
            value: (d) =>
              `${formatCpu(d.capacity.cpuMillis.allocated)}/${formatCpu(d.capacity.cpuMillis.total)}`,
            align: 'right',
          },
          {
            header: 'memory alloc/total',
            value: (d) =>
              `${formatBytes(d.capacity.memoryBytes.allocated)}/${formatBytes(d.capacity.memoryBytes.total)}`,
            align: 'right',
          },
        ],
        'domains',
      );
    });

  domain
    .command('show')
    .alias('get')
    .description("a domain's definition (GET /v1/domains/:id)")
    .argument('<domainId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const d = await ctx.hub(cmd).get<DomainDefinition>(`/v1/domains/${seg(id)}`);
      ctx.describe(cmd, d, [
        ['Domain', d.domainId],
        ['Parent', d.parentId],
        ['Region', d.region],
        ['Policy', d.policy],
        ['Labels', formatLabels(d.labels)],
        ['Head node', d.headNodeId],
        ['Revision', d.revision],
      ]);
    });

  domain
    .command('define')
    .description(
      'define a domain from flags or a YAML/JSON file (POST /v1/domains, admin); --update replaces an ' +
        "existing domain's definition (PUT /v1/domains/:id)",
    )
    .argument('[domainId]')
    .option('-f, --file <path>', 'definition file ({domainId, parentId, region, labels, policy, headNodeId})')
    .option('--parent <id>', 'parent domain (empty: a root)')
    .option('--region <region>', 'region')
    .option('--policy <name>', 'scheduling policy (least-loaded, bin-pack, spread, round-robin, ...)')
    .option('-l, --label <key=value>', 'a label (repeatable; replaces the file\u2019s labels)', collectPairs)
    .option('--head <nodeId>', 'head node')
    .option('--update', 'replace the definition of an existing domain')
    .action(async (id: string | undefined, opts, cmd: Command) => {
      const file = opts.file ? readDocument(opts.file, ctx.io.stdin) : undefined;
      const definition = domainDefinition(id, file, opts);
      const hub = ctx.hub(cmd);
      const { domainId, ...rest } = definition;
      const answer = opts.update
        ? await hub.request({ method: 'PUT', path: `/v1/domains/${seg(String(domainId))}`, body: rest })
        : await hub.request({ method: 'POST', path: '/v1/domains', body: definition });
      const r = answer.body as { domainId: string; revision: number };
      ctx.print(
        cmd,
        r,
        () => `domain ${r.domainId} ${opts.update ? 'updated' : 'defined'} (revision ${r.revision})\n`,
      );
    });

  return domain;
}
