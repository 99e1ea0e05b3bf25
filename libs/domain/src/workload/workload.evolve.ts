import { isServiceType, readinessProbed, type MeasuredUsage, type WorkloadSpec } from '@hcn/contracts';
import { sameJson } from '../equality';
import { assertNever } from '../errors';
import type { WorkloadEvent } from './workload.commands';
import { evolveAccepted, evolveDelegated, evolveRejected } from './workload.delegation';
import { evolveReachable, evolveUnknown, noteSiteRevision } from './workload.site-status';
import {
  ACTIVE_ALLOCATION,
  AllocationStatus,
  AllocationView,
  InstanceView,
  WAITING_INSTANCE,
  WorkloadState,
} from './workload.state';

/** Longest restart backoff, whatever the retries. */
const MAX_BACKOFF_MS = 300_000;

function pending(instance: number, attempt: number, retries: number, notBefore?: string): InstanceView {
  return { instance, attempt, status: 'pending', retries, ...(notBefore ? { notBefore } : {}) };
}

function setInstance(state: WorkloadState, next: InstanceView): WorkloadState {
  return { ...state, instances: state.instances.map((i) => (i.instance === next.instance ? next : i)) };
}

function setAllocation(state: WorkloadState, id: string, change: Partial<AllocationView>): WorkloadState {
  const current = state.allocations[id];
  if (!current) return state;
  return { ...state, allocations: { ...state.allocations, [id]: { ...current, ...change } } };
}

function backoff(spec: WorkloadSpec, retries: number, at: string): string {
  const ms = Math.min(spec.restartPolicy.backoffSeconds * 1000 * 2 ** Math.min(retries, 10), MAX_BACKOFF_MS);
  return new Date(Date.parse(at) + ms).toISOString();
}

/** The instance status of an allocation that ended with `outcome` and is not restarted. */
function endedStatus(outcome: AllocationStatus): InstanceView['status'] {
  if (outcome === 'stopping' || outcome === 'placed' || outcome === 'running' || outcome === 'rejected')
    return 'failed';
  return outcome;
}

/** What an instance becomes when its allocation ended with `outcome` (restart policy, replacement, scaling). */
function afterEnd(
  state: WorkloadState,
  allocation: AllocationView,
  outcome: AllocationStatus,
  at: string,
): WorkloadState {
  const spec = state.spec as WorkloadSpec;
  const instance = state.instances.find((i) => i.instance === allocation.instance);
  if (!instance || instance.allocationId !== allocation.allocationId) return state;
  if (instance.instance >= spec.replicas) {
    return { ...state, instances: state.instances.filter((i) => i.instance !== instance.instance) };
  }
  const next = (status: InstanceView['status']): WorkloadState =>
    setInstance(state, { ...instance, status, allocationId: allocation.allocationId });
  if (state.desired === 'stopped' || state.deleted)
    return next(outcome === 'completed' ? 'completed' : 'stopped');
  if (allocation.replace)
    return setInstance(state, pending(instance.instance, instance.attempt + 1, instance.retries));
  const policy = spec.restartPolicy;
  const restart =
    policy.policy === 'always' ||
    (policy.policy === 'on-failure' && outcome !== 'completed' && instance.retries < policy.maxRetries);
  if (!restart) return next(endedStatus(outcome));
  const notBefore = backoff(spec, instance.retries, at);
  return setInstance(
    state,
    pending(instance.instance, instance.attempt + 1, instance.retries + 1, notBefore),
  );
}

/** An instance without its sites' refusals: after an unschedulable verdict every site is a candidate again. */
function withoutRejectedSites(instance: InstanceView): InstanceView {
  const { rejectedSites: _sites, ...rest } = instance;
  return rest;
}

/** A service's allocation that no longer counts as an endpoint (other allocations have no readiness). */
function notReady(allocation: AllocationView): Pick<AllocationView, 'ready'> {
  return allocation.ready === undefined ? {} : { ready: false };
}

/** A running service allocation's readiness as reported (anything else is left as it is). */
function readiness(state: WorkloadState, allocationId: string, ready: boolean): WorkloadState {
  const allocation = state.allocations[allocationId];
  if (allocation?.status !== 'running' || allocation.ready === undefined) return state;
  return setAllocation(state, allocationId, { ready });
}

/** The measured usage an ending event carries, as an allocation change. */
function usageOf(data: { readonly usage?: MeasuredUsage }): Pick<AllocationView, 'usage'> {
  return data.usage ? { usage: data.usage } : {};
}

function ended(
  state: WorkloadState,
  allocationId: string,
  status: AllocationStatus,
  at: string,
  change: Partial<AllocationView>,
): WorkloadState {
  const allocation = state.allocations[allocationId];
  if (!allocation || !ACTIVE_ALLOCATION.has(allocation.status)) return state;
  const updated = setAllocation(state, allocationId, { ...change, ...notReady(allocation), status });
  return afterEnd(updated, allocation, status, at);
}

function submitted(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'WorkloadSubmitted' },
): WorkloadState {
  const { spec } = event.data;
  return {
    ...state,
    exists: true,
    workloadId: event.data.workloadId,
    spec,
    idempotencyKey: event.data.idempotencyKey,
    ...(event.data.delegatedFrom ? { delegatedFrom: event.data.delegatedFrom } : {}),
    generation: 1,
    instances: Array.from({ length: spec.replicas }, (_, i) => pending(i, 0, 0)),
  };
}

function updated(state: WorkloadState, event: WorkloadEvent & { type: 'WorkloadUpdated' }): WorkloadState {
  const { spec, generation } = event.data;
  const old = state.spec as WorkloadSpec;
  const changed = !sameJson({ ...old, replicas: 0 }, { ...spec, replicas: 0 });
  const allocations = Object.fromEntries(
    Object.entries(state.allocations).map(([id, a]) => [
      id,
      changed && ACTIVE_ALLOCATION.has(a.status) ? { ...a, replace: true } : a,
    ]),
  );
  const kept = state.instances.filter(
    (i) =>
      i.instance < spec.replicas ||
      (i.allocationId && ACTIVE_ALLOCATION.has(state.allocations[i.allocationId]?.status)),
  );
  const added = Array.from({ length: Math.max(0, spec.replicas - old.replicas) }, (_, k) =>
    pending(old.replicas + k, 0, 0),
  ).filter((p) => !kept.some((i) => i.instance === p.instance));
  return {
    ...state,
    spec,
    generation,
    allocations,
    instances: [...kept, ...added].sort((a, b) => a.instance - b.instance),
  };
}

function stopWaiting(state: WorkloadState): WorkloadState {
  return {
    ...state,
    instances: state.instances.map((i) =>
      WAITING_INSTANCE.has(i.status) ? { ...i, status: 'stopped' as const } : i,
    ),
  };
}

function restarted(state: WorkloadState): WorkloadState {
  const allocations = Object.fromEntries(
    Object.entries(state.allocations).map(([id, a]) => [
      id,
      ACTIVE_ALLOCATION.has(a.status) ? { ...a, replace: true } : a,
    ]),
  );
  const instances = state.instances.map((i) =>
    (i.allocationId && ACTIVE_ALLOCATION.has(state.allocations[i.allocationId]?.status)) ||
    WAITING_INSTANCE.has(i.status)
      ? i
      : pending(i.instance, i.attempt + 1, 0),
  );
  return { ...state, desired: 'running', allocations, instances };
}

/** Folds one workload event into the state (and the site revision it records, federation). */
export function evolveWorkload(state: WorkloadState, event: WorkloadEvent): WorkloadState {
  return noteSiteRevision(evolveEvent(state, event), event);
}

function evolveEvent(state: WorkloadState, event: WorkloadEvent): WorkloadState {
  switch (event.type) {
    case 'WorkloadSubmitted':
      return submitted(state, event);
    case 'WorkloadDelegated':
      return { ...state, hops: state.hops + 1 };
    case 'DelegationRejected':
      return evolveRejected(state, event);
    case 'AllocationDelegated':
      return evolveDelegated(state, event);
    case 'DelegationAccepted':
      return evolveAccepted(state, event);
    case 'AllocationPlaced': {
      const d = event.data;
      const allocation: AllocationView = {
        allocationId: d.allocationId,
        instance: d.instance,
        attempt: d.attempt,
        generation: d.generation,
        nodeId: d.nodeId,
        domainId: d.domainId,
        resources: d.resources,
        status: 'placed',
        ...(state.spec && isServiceType(state.spec.type)
          ? { ready: false, probed: readinessProbed(state.spec) }
          : {}),
      };
      const placed = {
        ...state,
        hops: state.hops + (d.decision?.hops.length ?? 0),
        allocations: { ...state.allocations, [d.allocationId]: allocation },
      };
      const instance = state.instances.find((i) => i.instance === d.instance);
      if (!instance) return placed;
      return setInstance(placed, {
        instance: d.instance,
        attempt: d.attempt,
        status: 'placed',
        allocationId: d.allocationId,
        retries: instance.retries,
      });
    }
    case 'WorkloadUnschedulable': {
      const instance = state.instances.find((i) => i.instance === event.data.instance);
      const hops = state.hops + (event.data.decision?.hops.length ?? 0);
      if (!instance) return { ...state, hops };
      return setInstance(
        { ...state, hops },
        {
          ...withoutRejectedSites(instance),
          status: 'unschedulable',
          unschedulableReasons: event.data.reasons,
        },
      );
    }
    case 'AllocationStarted': {
      const { allocationId, pid, ports } = event.data;
      const allocation = state.allocations[allocationId];
      if (!allocation || allocation.status !== 'placed') return state;
      const started = setAllocation(state, allocationId, {
        status: 'running',
        pid,
        ...(ports ? { ports } : {}),
        ...(allocation.ready === undefined ? {} : { ready: !allocation.probed }),
      });
      const instance = state.instances.find((i) => i.allocationId === allocationId);
      return instance && instance.status === 'placed'
        ? setInstance(started, { ...instance, status: 'running' })
        : started;
    }
    case 'AllocationReady':
      return readiness(state, event.data.allocationId, true);
    case 'AllocationNotReady':
      return readiness(state, event.data.allocationId, false);
    case 'AllocationCompleted':
      return ended(state, event.data.allocationId, 'completed', event.data.endedAt, {
        exitCode: event.data.exitCode,
        ...usageOf(event.data),
      });
    case 'AllocationFailed':
      return ended(state, event.data.allocationId, 'failed', event.data.endedAt, {
        exitCode: event.data.exitCode,
        reason: event.data.reason,
        ...usageOf(event.data),
      });
    case 'AllocationStopped':
      return ended(state, event.data.allocationId, 'stopped', event.data.endedAt, {
        exitCode: event.data.exitCode,
        reason: `ended by ${event.data.endedBy}`,
        ...usageOf(event.data),
      });
    case 'AllocationLost':
      return ended(state, event.data.allocationId, 'lost', event.data.lostAt, { reason: event.data.reason });
    case 'WorkloadStopRequested':
      return stopWaiting({ ...state, desired: 'stopped' });
    case 'AllocationStopRequested': {
      const allocation = state.allocations[event.data.allocationId];
      if (!allocation || !ACTIVE_ALLOCATION.has(allocation.status)) return state;
      const stopping = setAllocation(state, allocation.allocationId, {
        status: 'stopping',
        ...notReady(allocation),
      });
      const instance = state.instances.find((i) => i.allocationId === allocation.allocationId);
      return instance ? setInstance(stopping, { ...instance, status: 'stopping' }) : stopping;
    }
    case 'WorkloadRestartRequested':
      return restarted(state);
    case 'WorkloadUpdated':
      return updated(state, event);
    case 'WorkloadDeleted':
      return stopWaiting({ ...state, deleted: true, desired: 'stopped' });
    case 'AllocationUnknown':
      return evolveUnknown(state, event);
    case 'AllocationReachable':
      return evolveReachable(state, event);
    default:
      return assertNever(event);
  }
}
