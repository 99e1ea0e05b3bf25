import { DecisionBasisRecord, PlacedDevices, SiteRelation, deterministicUuid } from '@hcn/contracts';
import { DecisionRecord, InstanceView } from '@hcn/domain';
import { ChosenDevices, DEFAULT_TOP_K, Decision, compactDecision } from '@hcn/scheduling';

/** Result of trying to place one instance. */
export type PlacementOutcome = 'placed' | 'delegated' | 'unschedulable' | 'skipped';

/** The allocation id of one attempt of one instance: the same on every hub and after a restart. */
export function allocationIdFor(workloadId: string, instance: number, attempt: number): string {
  return deterministicUuid(`allocation:${workloadId}:${instance}:${attempt}`);
}

/**
 * Turns a scheduler decision into the record the workload decider takes: verdicts compacted to `topK`, with the
 * basis the deciding view had applied (what replay folds to get the same view); placed at a site (`site`, the
 * synthetic node `site:<id>`): a delegation.
 */
export function toDecisionRecord(
  instance: InstanceView,
  decision: Decision,
  allocationId: string,
  basis: DecisionBasisRecord,
  topK = DEFAULT_TOP_K,
  site?: { siteId: string; relation: SiteRelation },
): DecisionRecord {
  const record = compactDecision(decision, topK, basis);
  const base = { instance: instance.instance, attempt: instance.attempt, decision: record };
  if (decision.outcome === 'placed' && site) {
    return { ...base, outcome: { kind: 'delegated', allocationId, ...site } };
  }
  if (decision.outcome === 'placed') {
    const domainId = decision.domainPath[decision.domainPath.length - 1];
    const placed = { kind: 'placed' as const, allocationId, nodeId: decision.nodeId, domainId };
    return {
      ...base,
      outcome: decision.devices ? { ...placed, devices: placedDevices(decision.devices) } : placed,
    };
  }
  const detail = Object.entries(decision.reasons)
    .map(([code, n]) => `${code} x${n}`)
    .join(', ');
  return {
    ...base,
    outcome: { kind: 'unschedulable', reasons: decision.reasons, detail: detail.slice(0, 2000) },
  };
}

/** The chosen devices as recorded in AllocationPlaced (grants are implied by vendor, indexes and slice). */
function placedDevices(chosen: ChosenDevices): PlacedDevices {
  const { vendor, indexes, sliceMemoryBytes, oneIsland, bandwidthGBps, computeUnits, scores } = chosen;
  const base = {
    vendor: vendor as PlacedDevices['vendor'],
    indexes: [...indexes],
    oneIsland,
    bandwidthGBps,
    computeUnits,
    scores: { ...scores },
  };
  return sliceMemoryBytes === undefined ? base : { ...base, sliceMemoryBytes };
}
