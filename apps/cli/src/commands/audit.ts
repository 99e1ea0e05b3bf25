import {
  DecisionReplay,
  DecisionSelector,
  domainAt,
  explainDecision,
  nodeAt,
  parseInstant,
  quotaAt,
  readWorkload,
  renderChainText,
  buildChain,
} from '@hcn/audit';
import type { EventStore } from '@hcn/eventstore';
import { verifyHashChain } from '@hcn/eventstore';
import { Args, option, usage } from '../args';
import { ProgressBar } from '../progress';

/** What a command prints and the exit status it ends with. */
export interface Outcome {
  readonly output: string;
  readonly status: number;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function required(args: Args, index: number, what: string): string {
  const value = args.positional[index];
  if (!value) throw usage(`missing ${what}`);
  return value;
}

function integer(text: string, name: string): number {
  if (!/^\d+$/.test(text)) throw usage(`--${name} must be a whole number`);
  return Number(text);
}

function instantOf(args: Args): number {
  const at = option(args, 'at');
  return at === undefined ? Date.now() : parseInstant(at);
}

async function replay(store: EventStore, args: Args): Promise<Outcome> {
  const chain = buildChain(await readWorkload(store, required(args, 2, 'workload id')));
  return { output: args.options.json ? json(chain) : renderChainText(chain), status: 0 };
}

function selectorOf(args: Args): DecisionSelector {
  const hop = option(args, 'hop');
  const decision = option(args, 'decision');
  if ((hop === undefined) === (decision === undefined))
    throw usage('give exactly one of --hop N or --decision D');
  return hop !== undefined
    ? { hop: integer(hop, 'hop') }
    : { decision: integer(decision as string, 'decision') };
}

function explainText(r: DecisionReplay): string {
  const lines = [
    `decision ${r.decisionIndex} of ${r.workloadId} (instance ${r.instance}, attempt ${r.attempt}) at ${r.position}`,
    `snapshot rebuilt from ${r.clusterEvents} cluster events: ${r.snapshot.domains} domains, ${r.snapshot.nodes} nodes`,
    `recorded: ${JSON.stringify(r.recorded.outcome)}`,
    `replayed: ${JSON.stringify(r.replayed.outcome)}`,
    r.matches ? 'MATCH: the replayed decision equals the recorded one' : 'MISMATCH:',
    ...r.differences.map((d) => `  ${d}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function explain(store: EventStore, args: Args): Promise<Outcome> {
  const events = await readWorkload(store, required(args, 2, 'workload id'));
  const bar = new ProgressBar('reading cluster events', !!args.options.quiet);
  const onProgress = bar.update.bind(bar);
  const result = await explainDecision(store, events, selectorOf(args), { onProgress });
  return { output: args.options.json ? json(result) : explainText(result), status: result.matches ? 0 : 3 };
}

async function verify(store: EventStore, args: Args): Promise<Outcome> {
  const bar = new ProgressBar('verifying hash chains', !!args.options.quiet);
  const from = option(args, 'from');
  const to = option(args, 'to');
  const report = await verifyHashChain(
    store,
    {
      streamId: option(args, 'stream'),
      from: from === undefined ? undefined : new Date(parseInstant(from, 'from')),
      to: to === undefined ? undefined : new Date(parseInstant(to, 'to')),
    },
    (p) => bar.update({ read: p.eventsScanned, total: p.approximateTotal, done: false }),
  );
  bar.update({ read: report.eventsChecked, done: true });
  return { output: json(report), status: report.ok ? 0 : 1 };
}

/** `hcn audit <replay|explain|node|domain|quota|verify> ...` */
export async function audit(store: EventStore, args: Args): Promise<Outcome> {
  const sub = args.positional[1];
  switch (sub) {
    case 'replay':
      return replay(store, args);
    case 'explain':
      return explain(store, args);
    case 'node':
      return { output: json(await nodeAt(store, required(args, 2, 'node id'), instantOf(args))), status: 0 };
    case 'domain':
      return {
        output: json(await domainAt(store, required(args, 2, 'domain id'), instantOf(args))),
        status: 0,
      };
    case 'quota':
      return {
        output: json(await quotaAt(store, required(args, 2, 'namespace'), instantOf(args))),
        status: 0,
      };
    case 'verify':
      return verify(store, args);
    default:
      throw usage(`unknown audit command ${sub ?? '(none)'}`);
  }
}
