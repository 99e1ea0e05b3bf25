import type { CandidateVerdict, Decision, Hop } from './decision';
import { NODE_BLACKLISTED, NODE_EXCLUDED } from './plugins/reasons';

/** Best scored candidates a record keeps per scope by default (as Nomad keeps its top scores). */
export const DEFAULT_TOP_K = 5;
/** Candidates a record keeps per rejection reason, as examples. */
export const EXAMPLES_PER_REASON = 2;
/**
 * Reasons whose every candidate is kept: their lists are bounded by the request (nodes it excludes or blacklists),
 * and replay (excluded nodes) and reports (blacklist hits per node) need each of them.
 */
const KEEP_EVERY = new Set([NODE_EXCLUDED, NODE_BLACKLISTED]);

/** A scope's verdicts as a record keeps them; the full list is derived again by replaying the decision. */
export interface CompactVerdicts {
  /** Candidates judged (every member, or a sample of a large scope). */
  readonly judged: number;
  /** Candidates not accepted, counted per reason code (codes in order). */
  readonly rejectedCounts: Readonly<Record<string, number>>;
  /** The kept verdicts, in the order judged: the `topK` best scored, `chosen`, a few examples per reason. */
  readonly kept: CandidateVerdict[];
}

/** Reduces a scope's verdicts to counts per reason and the verdicts worth keeping (see CompactVerdicts). */
export function compactVerdicts(
  verdicts: readonly CandidateVerdict[],
  chosen: string | undefined,
  topK: number | 'every' = DEFAULT_TOP_K,
): CompactVerdicts {
  const keep = new Uint8Array(verdicts.length).fill(topK === 'every' ? 1 : 0);
  const counts: Record<string, number> = {};
  const scored: number[] = [];
  verdicts.forEach((v, i) => {
    if (v.id === chosen) keep[i] = 1;
    if (v.score !== undefined && Number.isFinite(v.score)) scored.push(i);
    if (v.accepted) return;
    const reason = v.reason ?? 'UNKNOWN';
    counts[reason] = (counts[reason] ?? 0) + 1;
    if (counts[reason] <= EXAMPLES_PER_REASON || KEEP_EVERY.has(reason)) keep[i] = 1;
  });
  scored.sort((a, b) => rankOrder(verdicts[a], verdicts[b]));
  if (topK !== 'every') for (const i of scored.slice(0, topK)) keep[i] = 1;
  const rejectedCounts = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { judged: verdicts.length, rejectedCounts, kept: verdicts.filter((_, i) => keep[i] === 1) };
}

/** Higher score first, then id. */
function rankOrder(a: CandidateVerdict, b: CandidateVerdict): number {
  return (b.score ?? 0) - (a.score ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** How a scope was judged, as recorded: members, sample limit, judged, counts per reason and what was kept. */
export interface RecordedJudging {
  readonly candidates: CandidateVerdict[];
  readonly members: number;
  readonly judged: number;
  readonly rejectedCounts: Readonly<Record<string, number>>;
  /** Best scored verdicts kept (absent: every verdict kept). */
  readonly topK?: number;
  readonly sampleLimit?: number;
}

/** A hop as the hub records it. */
export type RecordedHop = RecordedJudging & {
  readonly fromScope: string | null;
  readonly to: string;
  readonly toKind: 'domain' | 'node';
  readonly policy: Hop['policy'];
};

/** A failed scope as the hub records it. */
export type RecordedRejection = RecordedJudging & {
  readonly scope: string;
  readonly reason: string;
  readonly detail: string;
};

/**
 * A decision's hops and rejections in the shape the hub records them (verdicts compacted to `topK`, or all of them
 * with 'every'): the one mapping used to record a decision, to compare a replay with its record and to derive
 * every verdict.
 */
export function recordedScopes(
  decision: Decision,
  topK: number | 'every' = DEFAULT_TOP_K,
): { hops: RecordedHop[]; rejections: RecordedRejection[] } {
  const judging = (verdicts: readonly CandidateVerdict[], members: number, chosen?: string) => {
    const { judged, rejectedCounts, kept } = compactVerdicts(verdicts, chosen, topK);
    const candidates = kept.map((c) => ({ ...c }));
    const sampled = decision.sampleLimit !== undefined ? { sampleLimit: decision.sampleLimit } : {};
    const top = topK === 'every' ? {} : { topK };
    return { candidates, members, judged, rejectedCounts, ...top, ...sampled };
  };
  const hops = decision.hops.map((h) => ({
    fromScope: h.scope,
    to: h.chosen,
    toKind: h.chosenKind,
    policy: h.policy,
    ...judging(h.candidates, h.members, h.chosen),
  }));
  const rejections = decision.rejections.map((r) => ({
    scope: r.scope ?? '(root)',
    reason: r.reason,
    detail: r.detail.slice(0, 2000),
    ...judging(r.candidates, r.members),
  }));
  return { hops, rejections };
}
