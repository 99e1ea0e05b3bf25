import { CompactDecision, expandDecision } from '@hcn/contracts';
import { Decision, compactVerdicts, recordedScopes } from '@hcn/scheduling';
import type { ChainCandidate, ChainDecision, ChosenDevicesRecord, ScopeJudging } from '../chain/chain.model';

/** How a scope was judged, as compared: members, judged, counts per reason and the verdicts kept. */
export interface ComparableJudging {
  candidates: ChainCandidate[];
  members: number;
  judged: number;
  rejectedCounts: Record<string, number>;
}

/** A decision reduced to what the scheduler produced (the same mapping the hub records). */
export interface ComparableDecision {
  readonly hops: ReadonlyArray<
    { fromScope: string | null; to: string; toKind: string; policy: string } & ComparableJudging
  >;
  readonly rejections: ReadonlyArray<{ scope: string; reason: string; detail: string } & ComparableJudging>;
  readonly outcome:
    | { kind: 'placed'; nodeId: string; domainId: string; devices?: ComparableDevices }
    | { kind: 'unschedulable'; reasons: Record<string, number>; detail: string };
}

/** The devices of a placement as compared: vendor, device indexes and the memory slice. */
export interface ComparableDevices {
  vendor: string;
  indexes: number[];
  sliceMemoryBytes?: number;
}

function comparableDevices(d: ChosenDevicesRecord | undefined): { devices?: ComparableDevices } {
  if (!d) return {};
  const devices: ComparableDevices = { vendor: d.vendor, indexes: [...d.indexes] };
  if (d.sliceMemoryBytes !== undefined) devices.sliceMemoryBytes = d.sliceMemoryBytes;
  return { devices };
}
function candidates(list: readonly ChainCandidate[]): ChainCandidate[] {
  return list.map((c) => {
    const out: { -readonly [K in keyof ChainCandidate]: ChainCandidate[K] } = {
      id: c.id,
      kind: c.kind,
      accepted: c.accepted,
    };
    if (c.reason !== undefined) out.reason = c.reason;
    if (c.detail !== undefined) out.detail = c.detail;
    if (c.score !== undefined) out.score = c.score;
    return out;
  });
}

/** The top K the decision was recorded with (undefined: every verdict, as decisions recorded before compaction). */
export function recordedTopK(decision: ChainDecision): number | undefined {
  return (decision.hops[0] ?? decision.rejections[0])?.judging?.topK;
}

function sortedCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Judging as compared: the verdicts (copied field by field), members, judged and counts per reason. */
function comparableJudging(j: {
  candidates: readonly ChainCandidate[];
  members: number;
  judged: number;
  rejectedCounts: Readonly<Record<string, number>>;
}): ComparableJudging {
  const { members, judged } = j;
  return {
    candidates: candidates(j.candidates),
    members,
    judged,
    rejectedCounts: sortedCounts(j.rejectedCounts),
  };
}

/**
 * The scheduler's decision in the shape the hub records it (`recordedScopes`, the one mapping): verdicts compacted
 * to `topK` as the hub does, or every verdict when `topK` is undefined.
 */
export function comparableOf(decision: Decision, topK?: number): ComparableDecision {
  const scopes = recordedScopes(decision, topK ?? 'every');
  const hops = scopes.hops.map((h) => ({
    fromScope: h.fromScope,
    to: h.to,
    toKind: h.toKind,
    policy: h.policy,
    ...comparableJudging(h),
  }));
  const rejections = scopes.rejections.map((r) => ({
    scope: r.scope,
    reason: r.reason,
    detail: r.detail,
    ...comparableJudging(r),
  }));
  return { hops, rejections, outcome: outcomeOf(decision) };
}

/** The scheduler's outcome as compared. */
export function outcomeOf(decision: Decision): ComparableDecision['outcome'] {
  if (decision.outcome === 'placed') {
    const domainId = decision.domainPath[decision.domainPath.length - 1];
    const devices = comparableDevices(decision.devices);
    return { kind: 'placed', nodeId: decision.nodeId, domainId, ...devices };
  }
  const detail = Object.entries(decision.reasons)
    .map(([code, n]) => `${code} x${n}`)
    .join(', ')
    .slice(0, 2000);
  return { kind: 'unschedulable', reasons: { ...decision.reasons }, detail };
}

/** A recorded scope's judging as compared (older records: their full verdict list, counted here). */
function recordedJudging(
  list: readonly ChainCandidate[],
  judging: ScopeJudging | undefined,
): ComparableJudging {
  if (judging?.judged !== undefined)
    return comparableJudging({
      candidates: list,
      members: judging.members ?? judging.judged,
      judged: judging.judged,
      rejectedCounts: judging.rejectedCounts ?? {},
    });
  const rejectedCounts = compactVerdicts(list, undefined, 'every').rejectedCounts;
  return comparableJudging({
    candidates: list,
    members: judging?.members ?? list.length,
    judged: list.length,
    rejectedCounts,
  });
}

/** A compact record (as stored, or a replay encoded the same way) in the comparable shape, with `outcome`. */
export function comparableOfCompact(
  record: CompactDecision,
  outcome: ComparableDecision['outcome'],
): ComparableDecision {
  const { hops, rejections } = expandDecision(record);
  return {
    hops: hops.map((h) => ({
      fromScope: h.fromScope,
      to: h.to,
      toKind: h.toKind,
      policy: h.policy,
      ...comparableJudging(h),
    })),
    rejections: rejections.map((r) => ({
      scope: r.scope,
      reason: r.reason,
      detail: r.detail,
      ...comparableJudging(r),
    })),
    outcome,
  };
}

/** A recorded decision in the comparable shape. */
export function comparableRecord(d: ChainDecision): ComparableDecision {
  if (d.record) return comparableOfCompact(d.record, recordedOutcome(d));
  const hops = d.hops.map((h) => ({
    fromScope: h.fromScope,
    to: h.to,
    toKind: h.toKind,
    policy: h.policy,
    ...recordedJudging(h.candidates, h.judging),
  }));
  const rejections = d.rejections.map((r) => ({
    scope: r.scope,
    reason: r.reason,
    detail: r.detail,
    ...recordedJudging(r.candidates, r.judging),
  }));
  return { hops, rejections, outcome: recordedOutcome(d) };
}

function recordedOutcome(d: ChainDecision): ComparableDecision['outcome'] {
  const o = d.outcome;
  return o.kind === 'placed'
    ? { kind: 'placed', nodeId: o.nodeId, domainId: o.domainId, ...comparableDevices(o.devices) }
    : { kind: 'unschedulable', reasons: { ...o.reasons }, detail: o.detail };
}
