import type {
  ChainCandidate,
  ChainDecision,
  ChainHop,
  ChainRejection,
  ChosenDevicesRecord,
  EventRef,
  TimelineEntry,
  WorkloadChain,
} from './chain.model';

const BRANCH = '├─ ';
const LAST = '└─ ';
const PIPE = '│  ';
const SPACE = '   ';

/** A node of the text tree: its line and its children. */
interface TextNode {
  readonly line: string;
  readonly children: readonly TextNode[];
}

function meta(ref: EventRef): string {
  const actor = `${ref.actor.kind}:${ref.actor.id}`;
  return `[${ref.at} by ${actor}, rev ${ref.revision}, corr ${ref.correlationId}, cause ${ref.causationId}]`;
}

function candidate(c: ChainCandidate): TextNode {
  const mark = c.accepted ? '✓' : '✗';
  const score = c.score !== undefined ? ` score ${c.score}` : '';
  const why = c.reason ? ` ${c.reason}${c.detail ? ` (${c.detail})` : ''}` : '';
  return { line: `${mark} ${c.kind} ${c.id}${score}${why}`, children: [] };
}

function hopNode(hop: ChainHop): TextNode {
  const from = hop.fromScope ?? '(root)';
  return {
    line: `hop ${hop.seq} (#${hop.hop}): ${from} → ${hop.toKind} ${hop.to} by ${hop.policy} ${meta(hop)}`,
    children: hop.candidates.map(candidate),
  };
}

function rejectionNode(r: ChainRejection): TextNode {
  return {
    line: `rejected ${r.scope}: ${r.reason} — ${r.detail} (fallback to a peer) ${meta(r)}`,
    children: r.candidates.map(candidate),
  };
}

function devicesText(d: ChosenDevicesRecord | undefined): string {
  if (!d) return '';
  const slice = d.sliceMemoryBytes !== undefined ? `, slice ${d.sliceMemoryBytes} B` : '';
  return ` devices ${d.vendor}[${d.indexes.join(',')}]${slice}`;
}

function outcomeText(o: ChainDecision['outcome']): string {
  switch (o.kind) {
    case 'placed':
      if (o.site)
        return `delegated ${o.allocationId} to ${o.site.relation} site ${o.site.siteId} (from ${o.domainId})`;
      return `placed ${o.allocationId} on node ${o.nodeId} (${o.domainId})${devicesText(o.devices)}`;
    case 'unschedulable':
      return `unschedulable: ${o.detail}`;
    default: {
      const never: never = o;
      return never;
    }
  }
}

function decisionNode(d: ChainDecision): TextNode {
  const o = d.outcome;
  const result = outcomeText(o);
  return {
    line: `decision ${d.index}: instance ${d.instance} attempt ${d.attempt} (${d.trigger}) → ${result}`,
    children: [
      ...d.hops.map(hopNode),
      ...d.rejections.map(rejectionNode),
      { line: `${o.event.type} ${meta(o.event)}`, children: [] },
    ],
  };
}

function entryNode(e: TimelineEntry): TextNode {
  switch (e.entry) {
    case 'request':
      return { line: `${e.request.kind}: ${e.request.detail} ${meta(e.request)}`, children: [] };
    case 'decision':
      return decisionNode(e.decision);
    case 'allocation': {
      const a = e.allocation;
      return { line: `allocation ${a.allocationId} ${a.kind}: ${a.detail} ${meta(a)}`, children: [] };
    }
    default: {
      const never: never = e;
      return never;
    }
  }
}

function draw(node: TextNode, prefix: string, last: boolean, out: string[]): void {
  out.push(`${prefix}${last ? LAST : BRANCH}${node.line}`);
  const inner = prefix + (last ? SPACE : PIPE);
  node.children.forEach((child, i) => draw(child, inner, i === node.children.length - 1, out));
}

/** Renders a chain as a text tree: requests, decisions (hops with every candidate, rejections), allocations. */
export function renderChainText(chain: WorkloadChain): string {
  const out = [
    `workload ${chain.workloadId} (${chain.namespace}/${chain.name}): ${chain.events} events, ${chain.decisions.length} decisions`,
  ];
  chain.timeline.forEach((e, i) => draw(entryNode(e), '', i === chain.timeline.length - 1, out));
  return `${out.join('\n')}\n`;
}
