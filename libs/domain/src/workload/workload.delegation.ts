import { isServiceType, readinessProbed, sitePlace } from '@hcn/contracts';
import { DomainError } from '../errors';
import type { DecisionRecord, DelegationRefusal, WorkloadCommand, WorkloadEvent } from './workload.commands';
import { ACTIVE_ALLOCATION, AllocationView, InstanceView, WorkloadState } from './workload.state';

/** A delegation answer must name one of this workload's allocations delegated to that very site. */
export function foreignDelegation(
  state: WorkloadState,
  allocationId: string,
  siteId: string,
): DomainError | undefined {
  const allocation = state.allocations[allocationId];
  if (!allocation)
    return new DomainError(
      'WORKLOAD.ALLOCATION_NOT_FOUND',
      `Allocation ${allocationId} is not part of this workload`,
      { allocationId },
    );
  if (allocation.siteId !== siteId)
    return new DomainError(
      'FEDERATION.DELEGATION_NOT_TO_SITE',
      `Allocation ${allocationId} was not delegated to site ${siteId}`,
      { allocationId, siteId },
    );
  return undefined;
}

/** A delegation still waiting for its site's answer: active, not taken yet. */
function awaitingAnswer(state: WorkloadState, allocationId: string): AllocationView | undefined {
  const allocation = state.allocations[allocationId];
  if (!allocation || !ACTIVE_ALLOCATION.has(allocation.status) || allocation.siteWorkloadId) return undefined;
  return allocation;
}

/** AllocationDelegated for a decision that chose another site. */
export function delegated(
  state: WorkloadState,
  record: DecisionRecord,
  outcome: DecisionRecord['outcome'] & { kind: 'delegated' },
): WorkloadEvent[] {
  if (!state.workloadId || !state.spec) return [];
  const { allocationId, siteId, relation } = outcome;
  const data = {
    workloadId: state.workloadId,
    allocationId,
    instance: record.instance,
    attempt: record.attempt,
    generation: state.generation,
    siteId,
    relation,
    resources: state.spec.resources,
    decision: record.decision,
  };
  return [{ type: 'AllocationDelegated', data }];
}

/** DelegationAccepted once, while the delegation waits for its answer (a late or repeated answer: nothing). */
export function delegationAccepted(
  command: WorkloadCommand & { type: 'RecordDelegationAccepted' },
  state: WorkloadState,
): WorkloadEvent[] {
  const allocation = awaitingAnswer(state, command.allocationId);
  if (!allocation || !state.workloadId) return [];
  const { allocationId, siteId, siteWorkloadId, at } = command;
  const data = { workloadId: state.workloadId, allocationId, siteId, siteWorkloadId, acceptedAt: at };
  return [{ type: 'DelegationAccepted', data }];
}

/** DelegationRejected (scope `site:<id>`) once, while the delegation waits for its answer. */
export function delegationRejected(refusal: DelegationRefusal, state: WorkloadState): WorkloadEvent[] {
  const allocation = awaitingAnswer(state, refusal.allocationId);
  if (!allocation || !state.workloadId) return [];
  const { allocationId, siteId, reason, code, detail, reasons, at } = refusal;
  const data = {
    workloadId: state.workloadId,
    instance: allocation.instance,
    attempt: allocation.attempt,
    scope: sitePlace(siteId),
    reason,
    detail: detail.slice(0, 2000),
    candidates: [],
    allocationId,
    siteId,
    ...(code ? { code } : {}),
    ...(reasons ? { reasons: { ...reasons } } : {}),
    rejectedAt: at,
  };
  return [{ type: 'DelegationRejected', data }];
}

function setInstance(state: WorkloadState, next: InstanceView): WorkloadState {
  return { ...state, instances: state.instances.map((i) => (i.instance === next.instance ? next : i)) };
}

/** Folds AllocationDelegated: an allocation at `site:<id>`, its instance placed (sites refused so far kept). */
export function evolveDelegated(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'AllocationDelegated' },
): WorkloadState {
  const d = event.data;
  const allocation: AllocationView = {
    allocationId: d.allocationId,
    instance: d.instance,
    attempt: d.attempt,
    generation: d.generation,
    nodeId: sitePlace(d.siteId),
    domainId: d.siteId,
    resources: d.resources,
    status: 'placed',
    siteId: d.siteId,
    relation: d.relation,
    ...(state.spec && isServiceType(state.spec.type)
      ? { ready: false, probed: readinessProbed(state.spec) }
      : {}),
  };
  const placed = {
    ...state,
    hops: state.hops + d.decision.hops.length,
    allocations: { ...state.allocations, [d.allocationId]: allocation },
  };
  const instance = state.instances.find((i) => i.instance === d.instance);
  if (!instance) return placed;
  const { unschedulableReasons: _reasons, notBefore: _notBefore, ...rest } = instance;
  return setInstance(placed, { ...rest, attempt: d.attempt, status: 'placed', allocationId: d.allocationId });
}

/** Folds DelegationAccepted: the site's workload id noted; the instance's refusals forgotten. */
export function evolveAccepted(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'DelegationAccepted' },
): WorkloadState {
  const { allocationId, siteWorkloadId } = event.data;
  const allocation = state.allocations[allocationId];
  if (!allocation) return state;
  const allocations = { ...state.allocations, [allocationId]: { ...allocation, siteWorkloadId } };
  const instance = state.instances.find((i) => i.allocationId === allocationId);
  if (!instance?.rejectedSites) return { ...state, allocations };
  const { rejectedSites: _sites, ...rest } = instance;
  return setInstance({ ...state, allocations }, rest);
}

/**
 * Folds DelegationRejected: a site's refusal ends its allocation (`rejected`, it never ran) and its instance is
 * decided again, without that site and without spending a restart (stopped when the workload is stopping, dropped
 * when scaled away); a scope rejection of older logs changes nothing.
 */
export function evolveRejected(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'DelegationRejected' },
): WorkloadState {
  const { allocationId, siteId, reason, detail } = event.data;
  const allocation = allocationId ? state.allocations[allocationId] : undefined;
  if (!allocation || !siteId || !ACTIVE_ALLOCATION.has(allocation.status)) return state;
  const ended: AllocationView = { ...allocation, status: 'rejected', reason: `${reason}: ${detail}` };
  if (ended.ready !== undefined) Object.assign(ended, { ready: false });
  const next = { ...state, allocations: { ...state.allocations, [allocation.allocationId]: ended } };
  const instance = state.instances.find((i) => i.allocationId === allocation.allocationId);
  if (!instance || !state.spec) return next;
  if (instance.instance >= state.spec.replicas)
    return { ...next, instances: next.instances.filter((i) => i.instance !== instance.instance) };
  if (state.desired === 'stopped' || state.deleted)
    return setInstance(next, { ...instance, status: 'stopped' });
  const rejectedSites = [...(instance.rejectedSites ?? []), siteId];
  return setInstance(next, {
    instance: instance.instance,
    attempt: instance.attempt + 1,
    status: 'pending',
    retries: instance.retries,
    rejectedSites,
  });
}
