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

/** One scope after filtering and scoring: a verdict per judged member, the survivors with their order keys. */
export interface ScopeEvaluation {
  readonly policy: PolicyName;
  /** One verdict per judged member, in member (id) order. */
  readonly verdicts: CandidateVerdict[];
  readonly survivors: Candidate[];
  /** Index into `verdicts` of each survivor. */
  readonly slots: Int32Array;
  /** Rounded score of each survivor. */
  readonly scores: Float64Array;
  /** The decision's seed (tie-break draws are made from it when needed). */
  readonly seed: number;
  /** Members judged so far in the scope's rotation (all of them: `members.length`). */
  readonly visited: number;
}

/**
 * Which members one evaluation judges: the scope's members are walked in a rotation starting at `start` (drawn
 * from the decision's seed), from position `from`, until `limit` of them pass the filters or all were judged.
 */
export interface SampleWindow {
  readonly start: number;
  readonly from: number;
  readonly limit: number;
}

/** Salt of the draw that picks where a sampled scope's rotation starts. */
export const SAMPLE_SALT = 0x53414d50;

/**
 * The first window of a scope: every member when the scope is small or the request unbounded; in a large
 * round-robin scope, the members from the one whose turn it is (the scope's placement counter) to the first that
 * passes; else a rotation from a seeded start that stops once `sampleLimit` members passed.
 */
export function firstWindow(
  scope: DomainState | null,
  members: readonly Candidate[],
  request: CompiledRequest,
): SampleWindow {
  const n = members.length;
  if (n <= request.sampleLimit) return { start: 0, from: 0, limit: Infinity };
  if (scope?.policy === 'round-robin') return { start: scope.placements % n, from: 0, limit: 1 };
  const start = drawFor(request.seed, SAMPLE_SALT, scope?.idHash ?? 0) % n;
  return { start, from: 0, limit: request.sampleLimit };
}

/** The scope's policy (the virtual root's is ROOT_POLICY). */
export function policyOf(scope: DomainState | null): PolicyName {
  return scope ? scope.policy : ROOT_POLICY;
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
 * Filters the members of a scope's window, then scores the survivors with the scope's policy. Verdicts are built
 * once, in their final shape (accepted ones get their score filled in), to keep a 1,000-node scope cheap.
 */
export function evaluateScope(
  scope: DomainState | null,
  members: readonly Candidate[],
  request: CompiledRequest,
  filters: ActiveFilters,
  window: SampleWindow = { start: 0, from: 0, limit: Infinity },
): ScopeEvaluation {
  const judged = judgeWindow(members, request, filters, window);
  const { verdicts, survivors, slots } = judged;
  const count = survivors.length;
  const policy = policyOf(scope);
  const scores = new Float64Array(count);
  scorerFor(policy).score(survivors, { request, scope }, scores);
  if (request.devices) blendDeviceScores(survivors, request, scores);
  for (let j = 0; j < count; j++) {
    scores[j] = roundScore(scores[j]);
    verdicts[slots[j]].score = scores[j];
  }
  return { policy, verdicts, survivors, slots, scores, seed: request.seed, visited: judged.visited };
}

/** The members of a window filtered: verdicts and survivors in member order, and how far the rotation got. */
function judgeWindow(
  members: readonly Candidate[],
  request: CompiledRequest,
  filters: ActiveFilters,
  window: SampleWindow,
): { verdicts: CandidateVerdict[]; survivors: Candidate[]; slots: Int32Array; visited: number } {
  const n = members.length;
  const order: number[] = [];
  const rejections: Array<Rejection | undefined> = [];
  let passed = 0;
  let p = window.from;
  for (; p < n && passed < window.limit; p++) {
    const i = (window.start + p) % n;
    const m = members[i];
    const rejected =
      m.kind === 'node' ? filterNode(filters.node, m, request) : filterDomain(filters.domain, m, request);
    if (!rejected) passed++;
    order.push(i);
    rejections.push(rejected);
  }
  const wrap = order.findIndex((i, k) => k > 0 && i < order[k - 1]); // the rotation passed the last member
  const first = wrap < 0 ? 0 : wrap; // member (id) order, as an unsampled scope has it
  const verdicts: CandidateVerdict[] = new Array(order.length);
  const survivors: Candidate[] = new Array(passed);
  const slots = new Int32Array(passed);
  let count = 0;
  for (let k = 0; k < order.length; k++) {
    const at = (first + k) % order.length;
    const m = members[order[at]];
    const r = rejections[at];
    if (r) {
      verdicts[k] = { id: m.id, kind: m.kind, accepted: false, reason: r.reason, detail: r.detail };
      continue;
    }
    verdicts[k] = { id: m.id, kind: m.kind, accepted: true, score: NaN };
    survivors[count] = m;
    slots[count++] = k;
  }
  return { verdicts, survivors, slots, visited: p };
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
