import type { CandidateVerdict, ScopeRejection } from '../decision';
import { SCHEDULE_SUBTREE_FAILED } from '../decision';

/** Adds one to `counts[reason]`. */
export function countReason(counts: Record<string, number>, reason: string): void {
  counts[reason] = (counts[reason] ?? 0) + 1;
}

/** Human summary of a failed scope: how many candidates, and why they failed, most frequent first. */
export function summarize(verdicts: readonly CandidateVerdict[]): string {
  if (verdicts.length === 0) return 'no child domains and no nodes';
  const counts: Record<string, number> = {};
  for (const v of verdicts) if (v.reason) countReason(counts, v.reason);
  const parts = Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([reason, n]) => `${reason} ×${n}`);
  return `${verdicts.length} candidate(s), none usable: ${parts.join(', ')}`;
}

/** Count per reason code across every failed scope and its candidates (the `reasons` of an unschedulable). */
export function reasonCounts(rejections: readonly ScopeRejection[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rejections) {
    countReason(counts, r.reason);
    for (const v of r.candidates) if (v.reason) countReason(counts, v.reason);
  }
  return counts;
}

/** Marks a tried domain whose subtree failed. */
export function markSubtreeFailed(verdict: CandidateVerdict): void {
  verdict.accepted = false;
  verdict.reason = SCHEDULE_SUBTREE_FAILED;
  verdict.detail = `descended into ${verdict.id}; no node there could take it (see that scope's rejection)`;
}
