import { Command } from 'commander';
import { CliContext, itemsOf } from '../context';
import { usageError } from '../errors';
import { seg } from '../hub-client';
import { readDocument } from '../spec-file';
import { formatBytes, formatCpu, renderTable, trimNumber, usedOf } from '../table';
import { cpuQuantity, decimal, memoryQuantity, wholeNumber } from '../values';

/** The resources a quota limits: the API's name, the name shown (and of `--unset`), how an amount shows. */
const RESOURCES: ReadonlyArray<readonly [string, string, (n: number) => string]> = [
  ['cpuMillis', 'cpu', formatCpu],
  ['memoryBytes', 'memory', formatBytes],
  ['accelerators', 'accelerators', String],
  ['acceleratorMemoryBytes', 'accelerator-memory', formatBytes],
  ['computeUnits', 'compute-units', trimNumber],
  ['workloads', 'workloads', String],
];

type Amounts = Partial<Record<string, number>>;

/** `GET /v1/quotas` items. */
interface QuotaUsage {
  namespace: string;
  limits: Amounts;
  used: Amounts;
  remaining: Record<string, number | null>;
}

/** `GET /v1/quotas/:ns`. */
interface QuotaView {
  namespace: string;
  limits: Amounts;
  limitsSource: string;
  used: Amounts;
  holders: number;
}

/** `cpu=4, memory=8Gi, workloads=5`, or `no limits`. */
export function describeLimits(limits: Amounts): string {
  const set = RESOURCES.filter(([name]) => limits[name] !== undefined);
  return set.map(([name, shown, f]) => `${shown}=${f(limits[name] as number)}`).join(', ') || 'no limits';
}

/** The limits `quota set` sends: the current ones (unless --replace), the file's, then each flag. */
export function quotaLimits(
  current: Amounts,
  file: Amounts | undefined,
  flags: Amounts,
  unset: string[],
): Amounts {
  const limits: Amounts = { ...current, ...file };
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) limits[name] = value;
  for (const name of unset) delete limits[name];
  return limits;
}

const FLAG_OF: Record<string, string> = {
  cpu: 'cpuMillis',
  memory: 'memoryBytes',
  accelerators: 'accelerators',
  acceleratorMemory: 'acceleratorMemoryBytes',
  computeUnits: 'computeUnits',
  workloads: 'workloads',
};

function unsetName(text: string, previous: string[] = []): string[] {
  const resource = RESOURCES.find(([name, shown]) => text === shown || text === name);
  if (!resource) throw usageError(`--unset takes one of ${RESOURCES.map(([, shown]) => shown).join(', ')}`);
  return [...previous, resource[0]];
}

/** `hcn quota list|show|set`. */
export function quotaCommands(ctx: CliContext): Command {
  const quota = new Command('quota').alias('quotas').description('namespace quotas: list, show, set');

  quota
    .command('list')
    .alias('ls')
    .description('limits and usage of every namespace the token may see (GET /v1/quotas)')
    .option('--prefix <text>', 'namespaces starting with this')
    .action(async (opts, cmd: Command) => {
      const body = await ctx.hub(cmd).getAll('/v1/quotas', { prefix: opts.prefix });
      const col = (header: string, name: string, f: (n: number) => string) => ({
        header,
        value: (q: QuotaUsage) => usedOf(q.used?.[name], q.limits?.[name], f),
        align: 'right' as const,
      });
      ctx.table<QuotaUsage>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'namespace', value: (q) => q.namespace },
          col('cpu', 'cpuMillis', formatCpu),
          col('memory', 'memoryBytes', formatBytes),
          col('accel', 'accelerators', String),
          col('accel memory', 'acceleratorMemoryBytes', formatBytes),
          col('compute units', 'computeUnits', trimNumber),
          col('workloads', 'workloads', String),
        ],
        'quotas',
      );
    });

  quota
    .command('show')
    .alias('get')
    .description("a namespace's limits, usage and what is left (GET /v1/quotas/:namespace)")
    .argument('<namespace>')
    .action(async (ns: string, _opts, cmd: Command) => {
      const q = await ctx.hub(cmd).get<QuotaView>(`/v1/quotas/${seg(ns)}`);
      const rows = RESOURCES.map(([name, shown, f]) => {
        const limit = q.limits?.[name];
        const used = q.used?.[name] ?? 0;
        return {
          name: shown,
          used: f(used),
          limit: limit === undefined ? 'unlimited' : f(limit),
          left: limit === undefined ? '-' : f(Math.max(0, limit - used)),
        };
      });
      ctx.print(
        cmd,
        q,
        () =>
          `Namespace: ${q.namespace}  (limits: ${q.limitsSource}, ${q.holders} holders)\n` +
          renderTable(
            [
              { header: 'resource', value: (r) => r.name },
              { header: 'used', value: (r) => r.used, align: 'right' },
              { header: 'limit', value: (r) => r.limit, align: 'right' },
              { header: 'left', value: (r) => r.left, align: 'right' },
            ],
            rows,
          ),
      );
    });

  quota
    .command('set')
    .description(
      "set a namespace's hard limits (PUT /v1/quotas/:namespace, admin): the given ones change, the others " +
        'are kept (--replace: only the given ones remain)',
    )
    .argument('<namespace>')
    .option('--cpu <cores>', 'CPU: cores (16) or millicores (500m)', cpuQuantity)
    .option('--memory <bytes>', 'memory: bytes or a quantity (64Gi)', memoryQuantity)
    .option('--accelerators <n>', 'accelerator devices', wholeNumber)
    .option('--accelerator-memory <bytes>', 'accelerator memory (80Gi)', memoryQuantity)
    .option('--compute-units <n>', 'normalized compute units', decimal)
    .option('--workloads <n>', 'workloads', wholeNumber)
    .option('--unset <resource>', 'remove this limit (repeatable): cpu, memory, accelerators, ...', unsetName)
    .option('-f, --file <path>', 'limits from a YAML/JSON file ({limits: {...}} or the limits themselves)')
    .option('--replace', 'send only the limits given here, dropping the others')
    .action(async (ns: string, opts, cmd: Command) => {
      const hub = ctx.hub(cmd);
      const flags: Amounts = {};
      for (const [flag, name] of Object.entries(FLAG_OF)) flags[name] = opts[flag];
      let file: Amounts | undefined;
      if (opts.file) {
        const doc = readDocument(opts.file, ctx.io.stdin);
        file = (typeof doc.limits === 'object' && doc.limits !== null ? doc.limits : doc) as Amounts;
      }
      const given = Object.values(flags).some((v) => v !== undefined) || file || opts.unset;
      if (!given && !opts.replace)
        throw usageError('give at least one limit (--cpu, --memory, ..., -f FILE)');
      let current: Amounts = {};
      let etag: string | null = null;
      if (!opts.replace) {
        const view = await hub.request<QuotaView>({ method: 'GET', path: `/v1/quotas/${seg(ns)}` });
        current = view.body.limitsSource === 'namespace' ? view.body.limits : {};
        etag = view.headers.get('etag');
      }
      const limits = quotaLimits(current, file, flags, opts.unset ?? []);
      // the limits read are the ones changed: a hub that gives an ETag refuses the PUT when they changed since
      const answer = await hub.request({
        method: 'PUT',
        path: `/v1/quotas/${seg(ns)}`,
        body: { limits },
        headers: etag ? { 'if-match': etag } : undefined,
      });
      ctx.print(cmd, answer.body, () => `quota ${ns} set: ${describeLimits(limits)}\n`);
    });

  return quota;
}
