import type { CompactDecision, CompactVerdict, DecisionBasisRecord } from '@hcn/contracts';
import type { CandidateVerdict, Decision } from './decision';
import { DEFAULT_TOP_K, compactVerdicts } from './compact-verdicts';

function verdictOf(v: CandidateVerdict): CompactVerdict {
  const kind = v.kind === 'node' ? 'n' : 'd';
  const score = v.score !== undefined && Number.isFinite(v.score) ? v.score : null;
  return v.accepted ? [kind, v.id, score] : [kind, v.id, score, v.reason ?? 'UNKNOWN'];
}

function scopeOf(verdicts: readonly CandidateVerdict[], members: number, topK: number, chosen?: string) {
  const { judged, rejectedCounts, kept } = compactVerdicts(verdicts, chosen, topK);
  const rejected = Object.keys(rejectedCounts).length > 0 ? { rejected: { ...rejectedCounts } } : {};
  return { members, judged, ...rejected, kept: kept.map(verdictOf) };
}

/**
 * A scheduler decision as the hub records it inside its outcome event: each scope's verdicts compacted to the
 * `topK` best, the chosen one and two examples per reason (`compactVerdicts`), as tuples; `basis` when given. The
 * one encoding: the hub records with it and decision replay encodes its result with it to compare.
 */
export function compactDecision(
  decision: Decision,
  topK = DEFAULT_TOP_K,
  basis?: DecisionBasisRecord,
): CompactDecision {
  const hops = decision.hops.map((h) => {
    const scope = scopeOf(h.candidates, h.members, topK, h.chosen);
    const to = scope.kept.findIndex((v) => v[1] === h.chosen);
    return { scope: h.scope, policy: h.policy, to, ...scope };
  });
  const rejections = decision.rejections.map((r) => ({
    scope: r.scope ?? '(root)',
    reason: r.reason,
    detail: r.detail.slice(0, 2000),
    ...scopeOf(r.candidates, r.members, topK),
  }));
  return {
    hops,
    ...(rejections.length > 0 ? { rejections } : {}),
    topK,
    ...(decision.sampleLimit !== undefined ? { sampleLimit: decision.sampleLimit } : {}),
    ...(basis ? { basis } : {}),
  };
}
