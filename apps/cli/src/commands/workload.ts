import { Command } from 'commander';
import { CliContext, itemsOf, section } from '../context';
import { seg } from '../hub-client';
import { readText, parseDocuments } from '../spec-file';
import { formatAge, formatBytes, formatCpu } from '../table';
import { collect, oneOf, wholeNumber } from '../values';
import { workloadLogs } from './workload-logs';

/** A workload as `GET /v1/workloads` lists it. */
interface WorkloadItem {
  workloadId: string;
  namespace: string;
  name: string;
  type: string;
  status: string;
  replicas: number;
  resources: { cpuMillis: number; memoryBytes: number; accelerators?: number };
  instances: Array<{ status: string }>;
  submittedAt: string;
}

/** A workload as `GET /v1/workloads/:id` shows it. */
interface WorkloadView {
  workloadId: string;
  name?: string;
  namespace?: string;
  status: string;
  desired?: string;
  generation: number;
  spec?: Record<string, unknown> & {
    type?: string;
    replicas?: number;
    resources?: { cpuMillis?: number; memoryBytes?: number; accelerators?: number };
  };
  submittedAt?: string;
  submittedBy?: { kind?: string; id?: string } | string;
  revision: number;
  instances: Array<{
    instance: number;
    attempt: number;
    status: string;
    allocationId: string | null;
    nodeId: string | null;
    retries: number;
  }>;
  allocations: Array<{
    allocationId: string;
    instance: number;
    attempt: number;
    nodeId: string;
    status: string;
    exitCode?: number | null;
    reason?: string;
  }>;
  service?: { readyReplicas: number; replicas: number; endpoints: Record<string, string[]> };
}

/** What a submission, instantiation or workload command answers. */
export interface WorkloadResult {
  workloadId: string;
  status: string;
  revision: number;
  created?: boolean;
}

/** The table of submitted workloads (submit, template instantiate). */
export function printSubmitted(
  ctx: CliContext,
  cmd: Command,
  body: unknown,
  rows: ReadonlyArray<WorkloadResult & { name?: string }>,
): void {
  const named = rows.some((r) => r.name);
  ctx.table(
    cmd,
    body,
    rows,
    [
      { header: 'workload id', value: (r) => r.workloadId },
      ...(named ? [{ header: 'name', value: (r: WorkloadResult & { name?: string }) => r.name }] : []),
      { header: 'status', value: (r) => r.status },
      { header: 'created', value: (r) => (r.created === false ? 'no (same idempotency key)' : 'yes') },
    ],
    'workloads',
  );
}

/** `admin (user)` from an event's actor. */
function actorOf(actor: WorkloadView['submittedBy']): string {
  if (!actor) return '-';
  if (typeof actor === 'string') return actor;
  return actor.kind ? `${actor.id ?? '-'} (${actor.kind})` : (actor.id ?? '-');
}

function running(instances: ReadonlyArray<{ status: string }>): number {
  return instances.filter((i) => i.status === 'running').length;
}

/** `hcn workload submit|list|show|logs|stop|restart|delete`. */
export function workloadCommands(ctx: CliContext): Command {
  const workload = new Command('workload')
    .alias('workloads')
    .description('workloads: submit, list, show, logs, stop, restart, delete');

  workload
    .command('submit')
    .description(
      'submit the workload spec of a YAML or JSON file (POST /v1/workloads); several YAML documents ' +
        '(--- between them) go as one batch, admitted all or none (POST /v1/workloads/batch)',
    )
    .requiredOption('-f, --file <path>', 'spec file, - for standard input')
    .option('-n, --namespace <ns>', 'namespace (instead of the spec\u2019s)')
    .option(
      '--idempotency-key <key>',
      'a repeated key answers the first submission instead of a new one (several documents: <key>-0, <key>-1, ...)',
    )
    .action(async (opts, cmd: Command) => {
      const docs: Record<string, unknown>[] = parseDocuments(
        readText(opts.file, ctx.io.stdin),
        opts.file,
      ).map((d) => (opts.namespace ? { ...d, namespace: opts.namespace } : d));
      const hub = ctx.hub(cmd);
      if (docs.length === 1) {
        const key = opts.idempotencyKey as string | undefined;
        const answer = await hub.request<WorkloadResult>({
          method: 'POST',
          path: '/v1/workloads',
          body: docs[0],
          headers: key ? { 'idempotency-key': key } : undefined,
        });
        return printSubmitted(ctx, cmd, answer.body, [{ ...answer.body, name: String(docs[0].name ?? '') }]);
      }
      const body = {
        workloads: opts.idempotencyKey
          ? docs.map((d, i) => ({ ...d, idempotencyKey: `${opts.idempotencyKey}-${i}` }))
          : docs,
      };
      const answer = await hub.request<{ workloads: WorkloadResult[] }>({
        method: 'POST',
        path: '/v1/workloads/batch',
        body,
      });
      const rows = answer.body.workloads.map((w, i) => ({ ...w, name: String(docs[i]?.name ?? '') }));
      printSubmitted(ctx, cmd, answer.body, rows);
    });

  workload
    .command('list')
    .alias('ls')
    .description('list workloads of the namespaces the token may see (GET /v1/workloads)')
    .option('-n, --namespace <ns>', 'one namespace')
    .option('--status <status>', 'only this status (repeatable)', collect)
    .option('--name <text>', 'part of the name')
    .option('--node <nodeId>', 'with an instance on this node')
    .option('-a, --all', 'include deleted workloads')
    .option('--sort <field>', 'submittedAt | updatedAt | name | status | priority')
    .option('--order <order>', 'asc | desc', oneOf('asc', 'desc'))
    .option('--limit <n>', 'at most n (1..1000, default 100)', wholeNumber)
    .option('--cursor <cursor>', 'nextCursor of the previous page (printed under the table)')
    .action(async (opts, cmd: Command) => {
      const body = await ctx.hub(cmd).get('/v1/workloads', {
        namespace: opts.namespace,
        status: opts.status,
        name: opts.name,
        nodeId: opts.node,
        includeDeleted: opts.all ? true : undefined,
        sort: opts.sort,
        order: opts.order,
        limit: opts.limit,
        cursor: opts.cursor,
      });
      const now = ctx.io.now();
      ctx.table<WorkloadItem>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'workload id', value: (w) => w.workloadId },
          { header: 'namespace', value: (w) => w.namespace },
          { header: 'name', value: (w) => w.name },
          { header: 'type', value: (w) => w.type },
          { header: 'status', value: (w) => w.status },
          { header: 'running', value: (w) => `${running(w.instances ?? [])}/${w.replicas}`, align: 'right' },
          { header: 'cpu', value: (w) => formatCpu(w.resources?.cpuMillis), align: 'right' },
          { header: 'memory', value: (w) => formatBytes(w.resources?.memoryBytes), align: 'right' },
          { header: 'age', value: (w) => formatAge(w.submittedAt, now), align: 'right' },
        ],
        'workloads',
      );
    });

  workload
    .command('show')
    .alias('get')
    .description('one workload: state, instances, allocations (GET /v1/workloads/:id; --json adds every hop)')
    .argument('<workloadId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const w = await ctx.hub(cmd).get<WorkloadView>(`/v1/workloads/${seg(id)}`);
      const res = w.spec?.resources;
      const endpoints = Object.entries(w.service?.endpoints ?? {})
        .map(([name, list]) => `${name}: ${list.join(', ') || '-'}`)
        .join('\n');
      ctx.describe(
        cmd,
        w,
        [
          ['Workload', w.workloadId],
          ['Name', w.name],
          ['Namespace', w.namespace],
          ['Type', w.spec?.type ?? 'process'],
          ['Status', w.status],
          ['Desired', w.desired],
          ['Replicas', w.spec?.replicas ?? w.instances.length],
          [
            'Resources',
            res ? `cpu ${formatCpu(res.cpuMillis)}, memory ${formatBytes(res.memoryBytes)}` : null,
          ],
          ['Generation', w.generation],
          ['Submitted', w.submittedAt ? `${w.submittedAt} by ${actorOf(w.submittedBy)}` : null],
          ['Revision', w.revision],
          ...(w.service
            ? ([
                ['Ready', `${w.service.readyReplicas}/${w.service.replicas}`],
                ['Endpoints', endpoints || null],
              ] as const)
            : []),
        ],
        section(
          'Instances',
          [
            { header: 'instance', value: (i) => i.instance, align: 'right' },
            { header: 'attempt', value: (i) => i.attempt, align: 'right' },
            { header: 'status', value: (i) => i.status },
            {
              header: 'node',
              value: (i) => i.nodeId ?? w.allocations.find((a) => a.allocationId === i.allocationId)?.nodeId,
            },
            { header: 'allocation', value: (i) => i.allocationId },
            { header: 'retries', value: (i) => i.retries, align: 'right' },
          ],
          w.instances,
        ),
        section(
          'Allocations',
          [
            { header: 'allocation', value: (a) => a.allocationId },
            { header: 'instance', value: (a) => `${a.instance}/${a.attempt}` },
            { header: 'node', value: (a) => a.nodeId },
            { header: 'status', value: (a) => a.status },
            { header: 'exit', value: (a) => a.exitCode, align: 'right' },
            { header: 'reason', value: (a) => a.reason },
          ],
          w.allocations,
        ),
      );
    });

  workload
    .command('logs')
    .description("an allocation's output (GET /v1/workloads/:id/logs); -f follows (a poll every second)")
    .argument('<workloadId>')
    .option('-f, --follow', 'keep printing new lines until the workload has ended (or Ctrl-C)')
    .option('--lines <n>', 'the last n lines per stream (default 100)', wholeNumber)
    .option('--stream <stream>', 'stdout | stderr', oneOf('stdout', 'stderr'))
    .option('--allocation <id>', 'this allocation (default: each instance\u2019s current one)')
    .action((id: string, opts, cmd: Command) => workloadLogs(ctx, cmd, id, opts));

  for (const [verb, summary] of [
    ['stop', 'stop every allocation: SIGTERM, SIGKILL after the grace period (POST /v1/workloads/:id/stop)'],
    ['restart', 'replace every allocation with a fresh one (POST /v1/workloads/:id/restart)'],
  ] as const) {
    workload
      .command(verb)
      .description(summary)
      .argument('<workloadId>')
      .option('--reason <text>', 'recorded with the event')
      .action(async (id: string, opts, cmd: Command) => {
        const answer = await ctx.hub(cmd).request<WorkloadResult>({
          method: 'POST',
          path: `/v1/workloads/${seg(id)}/${verb}`,
          body: opts.reason ? { reason: opts.reason } : {},
        });
        const r = answer.body;
        ctx.print(
          cmd,
          r,
          () => `workload ${r.workloadId} ${verb} requested: ${r.status} (revision ${r.revision})\n`,
        );
      });
  }

  workload
    .command('delete')
    .alias('rm')
    .description('delete: stop every allocation and release the quota (DELETE /v1/workloads/:id)')
    .argument('<workloadId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const answer = await ctx
        .hub(cmd)
        .request<WorkloadResult>({ method: 'DELETE', path: `/v1/workloads/${seg(id)}` });
      const r = answer.body;
      ctx.print(cmd, r, () => `workload ${r.workloadId} deleted: ${r.status} (revision ${r.revision})\n`);
    });

  return workload;
}
