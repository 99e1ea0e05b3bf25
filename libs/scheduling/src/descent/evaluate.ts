import type { CompiledRequest } from '../constraints';
import type { CandidateVerdict } from '../decision';
import type { PolicyName } from '../model';
import type { ActiveFilters, DomainCheck, NodeCheck } from '../plugins/registry';
import { DEVICE_SCORERS, scorerFor } from '../plugins/registry';
import { deviceOutcome } from '../devices/device-outcome';
import type { DeviceChoice } from '../devices/choose-devices';
import type { DeviceRequest } from '../model';
import type { Rejection } from '../plugins/types';
import { drawFor } from '../random';
import type { Candidate, DomainState, NodeState } from '../tree/states';

/** Salt of the tie-break draws (distinct from the random policy's). */
export const TIE_SALT = 0x54494542;

/** The policy of the virtual root scope above the tree's roots. */
export const ROOT_POLICY: PolicyName = 'least-loaded';

/** One scope after filtering and scoring: a verdict per member, the survivors with their order keys. */
export interface ScopeEvaluation {
  readonly policy: PolicyName;
  /** One verdict per member, in member (id) order. */
  readonly verdicts: CandidateVerdict[];
  readonly survivors: Candidate[];
  /** Index into `verdicts` of each survivor. */
  readonly slots: Int32Array;
  /** Rounded score of each survivor. */
  readonly scores: Float64Array;
  /** The decision's seed (tie-break draws are made from it when needed). */
  readonly seed: number;
}

/** Runs node checks in order; the first rejection wins. */
export function filterNode(
  checks: readonly NodeCheck[],
  node: NodeState,
  request: CompiledRequest,
): Rejection | undefined {
  for (let i = 0; i < checks.length; i++) {
    const rejection = checks[i](node, request);
    if (rejection) return rejection;
  }
  return undefined;
}

/** Runs domain checks in order; the first rejection wins. */
export function filterDomain(
  checks: readonly DomainCheck[],
  domain: DomainState,
  request: CompiledRequest,
): Rejection | undefined {
  for (let i = 0; i < checks.length; i++) {
    const rejection = checks[i](domain, request);
    if (rejection) return rejection;
  }
  return undefined;
}

/**
 * Filters every member of a scope, then scores the survivors with the scope's policy. Verdicts are built once,
 * in their final shape (accepted ones get their score filled in), to keep a 1,000-node scope cheap.
 */
export function evaluateScope(
  scope: DomainState | null,
  members: readonly Candidate[],
  request: CompiledRequest,
  filters: ActiveFilters,
): ScopeEvaluation {
  const n = members.length;
  const verdicts: CandidateVerdict[] = new Array(n);
  const survivors: Candidate[] = new Array(n);
  const slots = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const m = members[i];
    const r =
      m.kind === 'node' ? filterNode(filters.node, m, request) : filterDomain(filters.domain, m, request);
    if (r) {
      verdicts[i] = { id: m.id, kind: m.kind, accepted: false, reason: r.reason, detail: r.detail };
      continue;
    }
    verdicts[i] = { id: m.id, kind: m.kind, accepted: true, score: NaN };
    survivors[count] = m;
    slots[count++] = i;
  }
  survivors.length = count;
  const policy = scope ? scope.policy : ROOT_POLICY;
  const scores = new Float64Array(count);
  scorerFor(policy).score(survivors, { request, scope }, scores);
  if (request.devices) blendDeviceScores(survivors, request, scores);
  for (let j = 0; j < count; j++) {
    scores[j] = roundScore(scores[j]);
    verdicts[slots[j]].score = scores[j];
  }
  return { policy, verdicts, survivors, slots: slots.subarray(0, count), scores, seed: request.seed };
}

/** Each device scorer's rating of a choice, by scorer name. */
export function deviceScores(choice: DeviceChoice, request: DeviceRequest): Record<string, number> {
  const out: Record<string, number> = {};
  for (const scorer of DEVICE_SCORERS) out[scorer.name] = roundScore(scorer.score(choice, request));
  return out;
}

/** For a request with devices, a node's score is half its policy score and half the mean device score. */
function blendDeviceScores(
  survivors: readonly Candidate[],
  request: CompiledRequest,
  scores: Float64Array,
): void {
  for (let j = 0; j < survivors.length; j++) {
    const m = survivors[j];
    if (m.kind !== 'node') continue;
    const outcome = deviceOutcome(m, request);
    if (!outcome || !('choice' in outcome)) continue;
    let sum = 0;
    for (const scorer of DEVICE_SCORERS) sum += scorer.score(outcome.choice, request.devices!);
    scores[j] = scores[j] / 2 + sum / DEVICE_SCORERS.length / 2;
  }
}

/** Scores are kept to three decimals (and in [0, 100]) so that equal-looking scores tie exactly. */
function roundScore(score: number): number {
  const rounded = Math.round(score * 1000) / 1000;
  return Number.isFinite(rounded) ? Math.min(100, Math.max(0, rounded)) : 0;
}

/** The best survivor not yet tried (score, then seeded draw, then id), or -1. */
export function nextBest(e: ScopeEvaluation, tried: Uint8Array): number {
  let best = -1;
  for (let j = 0; j < e.survivors.length; j++) {
    if (tried[j]) continue;
    if (best < 0 || ranksBefore(e, j, best)) best = j;
  }
  return best;
}

function ranksBefore(e: ScopeEvaluation, a: number, b: number): boolean {
  if (e.scores[a] !== e.scores[b]) return e.scores[a] > e.scores[b];
  const ta = drawFor(e.seed, TIE_SALT, e.survivors[a].idHash);
  const tb = drawFor(e.seed, TIE_SALT, e.survivors[b].idHash);
  if (ta !== tb) return ta > tb;
  return e.survivors[a].id < e.survivors[b].id;
}
