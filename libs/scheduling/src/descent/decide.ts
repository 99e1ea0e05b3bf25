import type { CompiledRequest } from '../constraints';
import { compileRequest } from '../constraints';
import type { CandidateVerdict, ChosenDevices, Decision, Hop, ScopeRejection } from '../decision';
import { deviceOutcome, forgetDeviceOutcomes } from '../devices/device-outcome';
import {
  SCHEDULE_INVALID_REQUEST,
  SCHEDULE_NO_CANDIDATES,
  SCHEDULE_NO_FEASIBLE_NODE,
  SCHEDULE_UNKNOWN_ROOT,
} from '../decision';
import type { PlacementRequest } from '../model';
import type { ActiveFilters } from '../plugins/registry';
import { activeFilters } from '../plugins/registry';
import { isValidAmount } from '../resources';
import type { SchedulingIndex } from '../tree/scheduling-index';
import type { DomainState, NodeState } from '../tree/states';
import { markSubtreeFailed, reasonCounts, summarize } from './explain';
import type { ScopeEvaluation } from './evaluate';
import { deviceScores, evaluateScope, firstWindow, nextBest } from './evaluate';

interface Descent {
  readonly index: SchedulingIndex;
  readonly request: CompiledRequest;
  readonly filters: ActiveFilters;
  readonly hops: Hop[];
  readonly rejections: ScopeRejection[];
}

/**
 * Decides where one instance goes: descends from the root scope, filtering and scoring the child domains and
 * nodes of each scope, best first; a domain whose subtree fails is recorded and the next peer is tried. Pure
 * and deterministic for a given index state and (workloadId, instance); does not reserve.
 */
export function decide(index: SchedulingIndex, request: PlacementRequest): Decision {
  const scopeId = request.rootDomainId ?? null;
  if (!isValidAmount(request.resources)) {
    return refuse(scopeId, SCHEDULE_INVALID_REQUEST, 'requested amounts must be finite and ≥ 0');
  }
  const start = scopeId === null ? null : index.domainState(scopeId);
  if (start === undefined) return refuse(scopeId, SCHEDULE_UNKNOWN_ROOT, `unknown root domain ${scopeId}`);
  const compiled = compileRequest(
    request,
    (id) => index.domainState(id),
    (id) => index.nodeState(id),
  );
  const filters = activeFilters(compiled);
  const descent: Descent = { index, request: compiled, filters, hops: [], rejections: [] };
  const node = visit(descent, start);
  const { hops, rejections } = descent;
  const sampled = Number.isFinite(compiled.sampleLimit) ? { sampleLimit: compiled.sampleLimit } : {};
  if (!node) {
    forgetDeviceOutcomes(compiled);
    return { outcome: 'unschedulable', hops, rejections, reasons: reasonCounts(rejections), ...sampled };
  }
  const domainPath = node.home.chain.slice(start ? start.depth : 0);
  const devices = chosenDevices(node, compiled);
  forgetDeviceOutcomes(compiled);
  const placed = { outcome: 'placed' as const, nodeId: node.id, domainPath, hops, rejections, ...sampled };
  return devices ? { ...placed, devices } : placed;
}

/** The devices the node's choice holds, with the device scorers' ratings (undefined without a device ask). */
function chosenDevices(node: NodeState, request: CompiledRequest): ChosenDevices | undefined {
  const outcome = deviceOutcome(node, request);
  if (!outcome || !('choice' in outcome)) return undefined;
  const { vendor, indexes, sliceMemoryBytes, grants, oneIsland, bandwidthGBps, computeUnits } =
    outcome.choice;
  const scores = deviceScores(outcome.choice, request.devices!);
  const base = { vendor, indexes, grants, oneIsland, bandwidthGBps, computeUnits, scores };
  return sliceMemoryBytes === undefined ? base : { ...base, sliceMemoryBytes };
}

/**
 * Tries one scope; on success the hops hold the chain down to the node, on failure its rejection is recorded. A
 * large scope is judged in seeded windows (`sampleLimit` feasible members each); a further window is judged only
 * when every survivor of the ones before failed below, so a fitting node is found whenever the scope has one.
 */
function visit(descent: Descent, scope: DomainState | null): NodeState | undefined {
  const members = scope ? scope.members : descent.index.roots;
  const judged: CandidateVerdict[] = [];
  for (let window = firstWindow(scope, members, descent.request); ;) {
    const evaluation = evaluateScope(scope, members, descent.request, descent.filters, window);
    const base = judged.length;
    for (const verdict of evaluation.verdicts) judged.push(verdict);
    const node = tryBest(descent, scope, evaluation, judged, base, members.length);
    if (node) return node;
    if (evaluation.visited >= members.length) break;
    window = { ...window, from: evaluation.visited };
  }
  const reason = members.length === 0 ? SCHEDULE_NO_CANDIDATES : SCHEDULE_NO_FEASIBLE_NODE;
  descent.rejections.push({
    scope: scope?.id ?? null,
    reason,
    detail: summarize(judged),
    candidates: judged,
    members: members.length,
  });
  return undefined;
}

/** Descends into the evaluation's survivors, best first, until one leads to a node. */
function tryBest(
  descent: Descent,
  scope: DomainState | null,
  evaluation: ScopeEvaluation,
  judged: CandidateVerdict[],
  base: number,
  members: number,
): NodeState | undefined {
  const { policy, survivors, slots } = evaluation;
  const tried = new Uint8Array(survivors.length);
  for (let best = nextBest(evaluation, tried); best >= 0; best = nextBest(evaluation, tried)) {
    tried[best] = 1;
    const chosen = survivors[best];
    descent.hops.push({
      scope: scope?.id ?? null,
      policy,
      chosen: chosen.id,
      chosenKind: chosen.kind,
      candidates: judged,
      members,
    });
    if (chosen.kind === 'node') return chosen;
    const node = visit(descent, chosen);
    if (node) return node;
    descent.hops.pop();
    markSubtreeFailed(judged[base + slots[best]]);
  }
  return undefined;
}

function refuse(scope: string | null, reason: string, detail: string): Decision {
  return {
    outcome: 'unschedulable',
    hops: [],
    rejections: [{ scope, reason, detail, candidates: [], members: 0 }],
    reasons: { [reason]: 1 },
  };
}
