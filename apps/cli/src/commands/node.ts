import { Command, Option } from 'commander';
import { CliContext, itemsOf, section } from '../context';
import { usageError } from '../errors';
import { seg } from '../hub-client';
import { formatAge, formatBytes, formatLabels } from '../table';
import { collect, oneOf, wholeNumber } from '../values';

/** A node as `GET /v1/nodes` and `/v1/nodes/:id` answer (the fields the CLI shows). */
interface NodeView {
  nodeId: string;
  domainId: string;
  hostname: string;
  arch: string;
  os: string;
  cpuCores: number;
  memoryBytes: number;
  diskBytes: number;
  accelerators: number;
  devices?: Array<{ index: number; vendor: string; model: string; memoryBytes?: number; health: number }>;
  labels: Record<string, string>;
  isHead: boolean;
  agentVersion: string;
  status: string;
  draining: boolean;
  stopRequested: boolean;
  registeredAt: string;
  lastSeenAt: string | null;
  usage: { cpuUsage: number; memoryUsedBytes: number; diskUsedBytes: number } | null;
  runtime?: {
    state?: string;
    activeInstances?: number;
    lastError?: { workloadId: string; reason: string; at: string } | null;
  };
}

/** `online`, `online,draining`, `offline,stopping`. */
function statusOf(n: NodeView): string {
  return [n.status, n.draining ? 'draining' : '', n.stopRequested ? 'stopping' : '']
    .filter(Boolean)
    .join(',');
}

/** Parses `key=value` (set) and `key-` (remove) words of `node labels`. */
export function labelChanges(words: readonly string[]): { set: Record<string, string>; remove: string[] } {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const word of words) {
    const at = word.indexOf('=');
    if (at > 0) set[word.slice(0, at)] = word.slice(at + 1);
    else if (/^[^=]+-$/.test(word)) remove.push(word.slice(0, -1));
    else throw usageError(`'${word}' is neither key=value (set) nor key- (remove)`);
  }
  return { set, remove };
}

function nodeCommandOutput(ctx: CliContext, cmd: Command, body: unknown, what: string): void {
  const r = body as { nodeId: string; revision: number };
  ctx.print(cmd, body, () => `node ${r.nodeId} ${what} (revision ${r.revision})\n`);
}

/** `hcn node list|show|drain|stop|labels`. */
export function nodeCommands(ctx: CliContext): Command {
  const node = new Command('node').description('registered nodes: list, show, drain, stop, labels');

  node
    .command('list')
    .alias('ls')
    .description('list nodes (GET /v1/nodes)')
    .option('--domain <id>', "only this domain's nodes")
    .addOption(new Option('--status <status>', 'online | offline | deregistered'))
    .addOption(
      new Option('--runtime <state>', 'what runs there').argParser(oneOf('idle', 'running', 'error')),
    )
    .option('-l, --label <key=value>', 'only nodes with this label (repeatable)', collect)
    .option('--sort <field>', 'hostname | lastSeenAt | registeredAt | cpuUsage')
    .addOption(new Option('--order <order>', 'asc | desc').argParser(oneOf('asc', 'desc')))
    .option('--limit <n>', 'at most n nodes (1..1000, default 100)', wholeNumber)
    .option('--cursor <cursor>', 'nextCursor of the previous page (printed under the table)')
    .action(async (opts, cmd: Command) => {
      const body = await ctx.hub(cmd).get('/v1/nodes', {
        domain: opts.domain,
        status: opts.status,
        runtime: opts.runtime,
        label: opts.label,
        sort: opts.sort,
        order: opts.order,
        limit: opts.limit,
        cursor: opts.cursor,
      });
      const now = ctx.io.now();
      ctx.table<NodeView>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'node id', value: (n) => n.nodeId },
          { header: 'hostname', value: (n) => n.hostname },
          { header: 'domain', value: (n) => n.domainId },
          { header: 'status', value: statusOf },
          { header: 'runtime', value: (n) => n.runtime?.state },
          { header: 'cpu', value: (n) => n.cpuCores, align: 'right' },
          { header: 'memory', value: (n) => formatBytes(n.memoryBytes), align: 'right' },
          { header: 'accel', value: (n) => n.accelerators, align: 'right' },
          { header: 'last seen', value: (n) => formatAge(n.lastSeenAt, now) },
        ],
        'nodes',
      );
    });

  node
    .command('show')
    .alias('get')
    .description('one node: resources, labels, devices, runtime (GET /v1/nodes/:id)')
    .argument('<nodeId>')
    .action(async (nodeId: string, _opts, cmd: Command) => {
      const n = await ctx.hub(cmd).get<NodeView>(`/v1/nodes/${seg(nodeId)}`);
      const usage = n.usage;
      const lastError = n.runtime?.lastError;
      ctx.describe(
        cmd,
        n,
        [
          ['Node', n.nodeId],
          ['Hostname', n.hostname],
          ['Domain', n.domainId],
          ['Status', statusOf(n)],
          ['Head', n.isHead ? 'yes' : 'no'],
          ['Platform', `${n.os}/${n.arch}`],
          ['CPU cores', n.cpuCores],
          ['Memory', formatBytes(n.memoryBytes)],
          ['Disk', formatBytes(n.diskBytes)],
          ['Accelerators', n.accelerators],
          ['Labels', formatLabels(n.labels)],
          [
            'Usage',
            usage
              ? `cpu ${Math.round(usage.cpuUsage * 100)}%, memory ${formatBytes(usage.memoryUsedBytes)}, ` +
                `disk ${formatBytes(usage.diskUsedBytes)}`
              : null,
          ],
          ['Runtime', n.runtime ? `${n.runtime.state} (${n.runtime.activeInstances ?? 0} active)` : null],
          [
            'Last error',
            lastError ? `${lastError.reason} (workload ${lastError.workloadId}, ${lastError.at})` : null,
          ],
          ['Agent', n.agentVersion],
          ['Registered', n.registeredAt],
          ['Last seen', n.lastSeenAt],
        ],
        section(
          'Devices',
          [
            { header: 'index', value: (d) => d.index, align: 'right' },
            { header: 'vendor', value: (d) => d.vendor },
            { header: 'model', value: (d) => d.model },
            { header: 'memory', value: (d) => formatBytes(d.memoryBytes), align: 'right' },
            { header: 'health', value: (d) => d.health, align: 'right' },
          ],
          n.devices ?? [],
        ),
      );
    });

  for (const [verb, path, done, summary] of [
    ['drain', 'drain', 'draining', 'place no new work on the node (POST /v1/nodes/:id/drain)'],
    ['stop', 'stop', 'stop requested', "ask the node's agent to stop gracefully (POST /v1/nodes/:id/stop)"],
  ] as const) {
    node
      .command(verb)
      .description(summary)
      .argument('<nodeId>')
      .option('--reason <text>', 'recorded with the event')
      .action(async (nodeId: string, opts, cmd: Command) => {
        const answer = await ctx.hub(cmd).request({
          method: 'POST',
          path: `/v1/nodes/${seg(nodeId)}/${path}`,
          body: { reason: opts.reason ?? '' },
        });
        nodeCommandOutput(ctx, cmd, answer.body, done);
      });
  }

  node
    .command('labels')
    .description(
      "show a node's labels, or change them: key=value sets, key- removes, the others are kept " +
        '(--replace: exactly the given ones) (PUT /v1/nodes/:id/labels)',
    )
    .argument('<nodeId>')
    .argument('[changes...]', 'key=value or key-')
    .option('--replace', 'replace every label with the given key=value pairs (none: remove all)')
    .action(async (nodeId: string, words: string[], opts, cmd: Command) => {
      const hub = ctx.hub(cmd);
      const { set, remove } = labelChanges(words);
      if (remove.length > 0 && opts.replace) throw usageError('--replace takes key=value pairs only');
      if (words.length === 0 && !opts.replace) {
        const n = await hub.get<NodeView>(`/v1/nodes/${seg(nodeId)}`);
        return ctx.print(cmd, n.labels, () =>
          Object.keys(n.labels).length === 0
            ? ''
            : `${Object.entries(n.labels)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([k, v]) => `${k}=${v}`)
                .join('\n')}\n`,
        );
      }
      let labels = set;
      if (!opts.replace) {
        const current = (await hub.get<NodeView>(`/v1/nodes/${seg(nodeId)}`)).labels ?? {};
        labels = { ...current, ...set };
        for (const key of remove) delete labels[key];
      }
      const answer = await hub.request({
        method: 'PUT',
        path: `/v1/nodes/${seg(nodeId)}/labels`,
        body: { labels },
      });
      nodeCommandOutput(ctx, cmd, answer.body, `labels ${formatLabels(labels)}`);
    });

  return node;
}
