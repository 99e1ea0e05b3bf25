import { z } from 'zod';
import { domainIdSchema } from './node.events';
import { schedulingPolicySchema } from './resources.schemas';

const kindCode = z.enum(['n', 'd']);
const candidateId = z.string().max(64);
const reasonCode = z.string().max(64);

/**
 * One kept verdict, compact: `[kind, id, score]` for an accepted candidate, `[kind, id, score, reason]` for a
 * rejected one (kind `n` node, `d` domain; score null when the candidate was not scored). The reason's detail is
 * not kept: replaying the decision derives it.
 */
export const compactVerdictSchema = z.union([
  z.tuple([kindCode, candidateId, z.number().nullable()]),
  z.tuple([kindCode, candidateId, z.number().nullable(), reasonCode]),
]);

/** How one scope was judged: its members, how many were judged, counts per rejection reason, the verdicts kept. */
const compactScope = {
  members: z.number().int().min(0),
  judged: z.number().int().min(0),
  /** Candidates not accepted, per reason code (absent: none). */
  rejected: z.record(reasonCode, z.number().int().min(0)).optional(),
  /** The `topK` best scored, the chosen one, a few examples per reason, in the order judged. */
  kept: z.array(compactVerdictSchema).max(1000),
};

/** One hop of a decision: at `scope` the policy chose `kept[to]`. */
export const compactHopSchema = z.object({
  scope: domainIdSchema.nullable(),
  policy: schedulingPolicySchema,
  to: z.number().int().min(0),
  ...compactScope,
});

/** A scope that failed during a decision (its parent fell back to a peer). */
export const compactRejectionSchema = z.object({
  scope: z.string().max(64),
  reason: reasonCode,
  detail: z.string().max(2000),
  ...compactScope,
});

/** The tiers a federated decision tries, in order: this hub's own tree, its child sites, its peer sites. */
export const federationTierSchema = z.enum(['local', 'children', 'peers']);

/**
 * What a federated decision judged besides this hub's tree (absent: no other site was a candidate): the tiers in
 * the order tried, each child site judged with the revision of the `sitesummary-<id>` event its candidate was built
 * from, and the peer sites (configuration, not the log: judged without a summary).
 */
export const federationBasisSchema = z.object({
  order: z.array(federationTierSchema).min(1).max(3),
  children: z.array(z.tuple([domainIdSchema, z.number().int().min(0)])).max(1000),
  peers: z.array(domainIdSchema).max(1000),
});

/**
 * What the deciding hub's view had applied: every cluster event up to `at` (a log position, `commit/prepare`),
 * and, beyond it, the events of each commit in `ahead` (offsets from at's commit, as runs `0,5-6,8-45`: the hub's
 * own appends, applied before its subscription brought them back); `partial` names commits of which only some node
 * streams were applied (`[offset, nodeId, ...]`).
 */
export const decisionBasisSchema = z.object({
  at: z.string().regex(/^\d+\/\d+$/),
  ahead: z
    .string()
    .max(20_000)
    .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/)
    .optional(),
  partial: z
    .array(z.tuple([z.number().int().min(0)], z.string().max(64)))
    .max(10_000)
    .optional(),
  federation: federationBasisSchema.optional(),
});

/**
 * A scheduling decision as recorded inside its outcome event (`AllocationPlaced` or `WorkloadUnschedulable`), in
 * the full form every reader gets: every hop and rejection compactly, the record's `topK` and sample limit, and the
 * basis the replay starts from. The seed is not stored: the scheduler derives it from (workload id, instance), both
 * in the event. What the store keeps of it: `compactDecisionSchema` (decision.stored.ts).
 */
export const fullDecisionSchema = z.object({
  hops: z.array(compactHopSchema).max(64),
  rejections: z.array(compactRejectionSchema).max(1000).optional(),
  topK: z.number().int().min(0),
  sampleLimit: z.number().int().min(1).optional(),
  basis: decisionBasisSchema.optional(),
});

/** A compact decision record. */
export type CompactDecision = z.output<typeof fullDecisionSchema>;
/** A compact verdict. */
export type CompactVerdict = z.output<typeof compactVerdictSchema>;
/** What a decision's hub view had applied. */
export type DecisionBasisRecord = z.output<typeof decisionBasisSchema>;
/** What a federated decision judged besides this hub's tree. */
export type FederationBasisRecord = z.output<typeof federationBasisSchema>;
/** A tier of a federated decision. */
export type FederationTier = z.output<typeof federationTierSchema>;

/** A verdict in the long form (as older `WorkloadDelegated` / `DelegationRejected` events hold them). */
export interface ExpandedVerdict {
  id: string;
  kind: 'domain' | 'node';
  accepted: boolean;
  reason?: string;
  score?: number;
}

/** How a scope was judged, in the long form of older events. */
interface ExpandedJudging {
  candidates: ExpandedVerdict[];
  members: number;
  judged: number;
  rejectedCounts: Record<string, number>;
  topK: number;
  sampleLimit?: number;
}

/** A hop in the long form of a `WorkloadDelegated` event's data (without workload, instance, attempt). */
export type ExpandedHop = ExpandedJudging & {
  hop: number;
  fromScope: string | null;
  to: string;
  toKind: 'domain' | 'node';
  policy: string;
};

/** A rejection in the long form of a `DelegationRejected` event's data (without workload, instance, attempt). */
export type ExpandedRejection = ExpandedJudging & { scope: string; reason: string; detail: string };

/** A compact verdict in the long form. */
export function expandVerdict([kind, id, score, reason]: CompactVerdict): ExpandedVerdict {
  const verdict: ExpandedVerdict = {
    id,
    kind: kind === 'n' ? 'node' : 'domain',
    accepted: reason === undefined,
  };
  if (reason !== undefined) verdict.reason = reason;
  if (score !== null) verdict.score = score;
  return verdict;
}

function expandJudging(
  scope: { members: number; judged: number; rejected?: Record<string, number>; kept: CompactVerdict[] },
  decision: CompactDecision,
): ExpandedJudging {
  const sampled = decision.sampleLimit === undefined ? {} : { sampleLimit: decision.sampleLimit };
  return {
    candidates: scope.kept.map(expandVerdict),
    members: scope.members,
    judged: scope.judged,
    rejectedCounts: { ...(scope.rejected ?? {}) },
    topK: decision.topK,
    ...sampled,
  };
}

/** A compact decision's hops and rejections in the long form older events hold (one reader for both shapes). */
export function expandDecision(decision: CompactDecision): {
  hops: ExpandedHop[];
  rejections: ExpandedRejection[];
} {
  const hops = decision.hops.map((h, hop) => {
    const chosen = h.kept[h.to];
    return {
      hop,
      fromScope: h.scope,
      to: chosen?.[1] ?? '',
      toKind: chosen?.[0] === 'd' ? ('domain' as const) : ('node' as const),
      policy: h.policy,
      ...expandJudging(h, decision),
    };
  });
  const rejections = (decision.rejections ?? []).map((r) => ({
    scope: r.scope,
    reason: r.reason,
    detail: r.detail,
    ...expandJudging(r, decision),
  }));
  return { hops, rejections };
}

/** Offsets as runs: `[0, 5, 6, 8, 9, 10]` → `0,5-6,8-10` (sorted, distinct). */
export function formatOffsetRuns(offsets: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < offsets.length;) {
    let j = i;
    while (j + 1 < offsets.length && offsets[j + 1] === offsets[j] + 1) j++;
    runs.push(j === i ? `${offsets[i]}` : `${offsets[i]}-${offsets[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

/** Runs written by formatOffsetRuns as `[from, to]` pairs in order (`0,5-6` → `[[0, 0], [5, 6]]`; none: empty). */
export function parseOffsetRuns(runs: string | undefined): Array<[number, number]> {
  if (!runs) return [];
  return runs.split(',').map((run) => {
    const [from, to = from] = run.split('-').map(Number);
    return [from, to];
  });
}

/** Whether `offset` is in runs parsed by parseOffsetRuns (binary search: they are sorted and distinct). */
export function offsetInRuns(runs: ReadonlyArray<readonly [number, number]>, offset: number): boolean {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = runs[mid];
    if (offset < from) hi = mid - 1;
    else if (offset > to) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The last offset of runs written by formatOffsetRuns (-1: none). */
export function lastOffsetOfRuns(runs: string | undefined): number {
  if (!runs) return -1;
  const last = runs.slice(runs.lastIndexOf(',') + 1);
  return Number(last.slice(last.lastIndexOf('-') + 1));
}
