import { RUNNABLE_WORKLOAD_TYPES, type WorkloadSpec } from '@hcn/contracts';
import { sameJson } from '../equality';
import { DomainError, assertNever } from '../errors';
import type { AllocationEnd, DecisionRecord, WorkloadCommand, WorkloadEvent } from './workload.commands';
import { evolveWorkload } from './workload.evolve';
import {
  ACTIVE_ALLOCATION,
  AllocationView,
  WAITING_INSTANCE,
  WorkloadState,
  initialWorkloadState,
} from './workload.state';

function requireLive(state: WorkloadState): Required<Pick<WorkloadState, 'workloadId' | 'spec'>> {
  if (!state.exists || !state.workloadId || !state.spec)
    throw new DomainError('WORKLOAD.NOT_FOUND', 'Workload does not exist');
  if (state.deleted) {
    throw new DomainError('WORKLOAD.DELETED', `Workload ${state.workloadId} was deleted`, {
      workloadId: state.workloadId,
    });
  }
  return { workloadId: state.workloadId, spec: state.spec };
}

function requireSupported(spec: WorkloadSpec): void {
  if (!RUNNABLE_WORKLOAD_TYPES.includes(spec.type)) {
    throw new DomainError(
      'WORKLOAD.TYPE_UNSUPPORTED',
      `Workload type ${spec.type} is not supported yet; use process or container`,
      {
        type: spec.type,
      },
    );
  }
}

function requireAllocation(state: WorkloadState, allocationId: string, nodeId?: string): AllocationView {
  const allocation = state.allocations[allocationId];
  if (!allocation) {
    throw new DomainError(
      'WORKLOAD.ALLOCATION_NOT_FOUND',
      `Allocation ${allocationId} is not part of this workload`,
      {
        allocationId,
      },
    );
  }
  if (nodeId !== undefined && allocation.nodeId !== nodeId) {
    throw new DomainError(
      'AUTH.ALLOCATION_NOT_ON_NODE',
      `Allocation ${allocationId} does not run on node ${nodeId}`,
      {
        allocationId,
        nodeId,
      },
    );
  }
  return allocation;
}

/** Stop requests for active allocations matching `which` that were not asked to stop already. */
function stopRequests(
  state: WorkloadState,
  reason: string,
  which: (a: AllocationView) => boolean = () => true,
): WorkloadEvent[] {
  const { workloadId, spec } = requireLive(state);
  return Object.values(state.allocations)
    .filter((a) => ACTIVE_ALLOCATION.has(a.status) && a.status !== 'stopping' && which(a))
    .map((a) => ({
      type: 'AllocationStopRequested' as const,
      data: {
        workloadId,
        allocationId: a.allocationId,
        nodeId: a.nodeId,
        gracePeriodSeconds: spec.stopGraceSeconds,
        reason,
      },
    }));
}

function submit(command: WorkloadCommand & { type: 'Submit' }, state: WorkloadState): WorkloadEvent[] {
  requireSupported(command.spec);
  if (!state.exists) {
    const { workloadId, spec, idempotencyKey } = command;
    return [{ type: 'WorkloadSubmitted', data: { workloadId, spec, idempotencyKey } }];
  }
  if (sameJson(state.spec, command.spec) && !state.deleted) return [];
  throw new DomainError(
    'WORKLOAD.IDEMPOTENCY_CONFLICT',
    'A different workload was already submitted with this idempotency key',
    { workloadId: command.workloadId, idempotencyKey: command.idempotencyKey },
  );
}

function recordDecision(decision: DecisionRecord, state: WorkloadState): WorkloadEvent[] {
  const { workloadId, spec } = requireLive(state);
  const { instance, attempt } = decision;
  const current = state.instances.find((i) => i.instance === instance);
  if (
    !current ||
    !WAITING_INSTANCE.has(current.status) ||
    current.attempt !== attempt ||
    state.desired !== 'running'
  ) {
    throw new DomainError(
      'WORKLOAD.STALE_DECISION',
      `Instance ${instance} attempt ${attempt} is not waiting for a placement`,
      {
        workloadId,
        instance,
        attempt,
        status: current?.status ?? 'absent',
      },
    );
  }
  const outcome = decision.outcome;
  if (
    outcome.kind === 'unschedulable' &&
    current.status === 'unschedulable' &&
    sameJson(current.unschedulableReasons, outcome.reasons)
  )
    return [];
  const base = { workloadId, instance, attempt };
  const events: WorkloadEvent[] = [
    ...decision.hops.map((hop, index) => ({
      type: 'WorkloadDelegated' as const,
      data: { ...base, hop: index, ...hop },
    })),
    ...decision.rejections.map((r) => ({ type: 'DelegationRejected' as const, data: { ...base, ...r } })),
  ];
  if (outcome.kind === 'placed') {
    const { allocationId, nodeId, domainId, devices } = outcome;
    const data = {
      ...base,
      allocationId,
      nodeId,
      domainId,
      generation: state.generation,
      resources: spec.resources,
      ...(devices ? { devices } : {}),
    };
    return [...events, { type: 'AllocationPlaced', data }];
  }
  return [
    ...events,
    {
      type: 'WorkloadUnschedulable',
      data: { ...base, reasons: { ...outcome.reasons }, detail: outcome.detail },
    },
  ];
}

function recordEnded(end: AllocationEnd, state: WorkloadState): WorkloadEvent[] {
  const allocation = requireAllocation(state, end.allocationId, end.nodeId);
  if (!ACTIVE_ALLOCATION.has(allocation.status)) return [];
  const workloadId = state.workloadId as string;
  const common = {
    workloadId,
    allocationId: end.allocationId,
    nodeId: allocation.nodeId,
    ...(end.usage ? { usage: end.usage } : {}),
  };
  switch (end.outcome) {
    case 'completed':
      return [
        { type: 'AllocationCompleted', data: { ...common, exitCode: end.exitCode ?? 0, endedAt: end.at } },
      ];
    case 'failed':
      return [
        {
          type: 'AllocationFailed',
          data: {
            ...common,
            reason: end.reason,
            exitCode: end.exitCode,
            signal: end.signal,
            endedAt: end.at,
          },
        },
      ];
    case 'stopped':
      return [
        {
          type: 'AllocationStopped',
          data: {
            ...common,
            endedBy: end.endedBy,
            exitCode: end.exitCode,
            signal: end.signal,
            endedAt: end.at,
          },
        },
      ];
    default:
      return assertNever(end.outcome);
  }
}

function withoutReplicas(spec: WorkloadSpec): Omit<WorkloadSpec, 'replicas'> {
  const { replicas: _replicas, ...rest } = spec;
  return rest;
}

function update(spec: WorkloadSpec, state: WorkloadState): WorkloadEvent[] {
  const live = requireLive(state);
  requireSupported(spec);
  if (spec.namespace !== live.spec.namespace) {
    throw new DomainError('WORKLOAD.NAMESPACE_IMMUTABLE', 'A workload cannot move to another namespace', {
      workloadId: live.workloadId,
    });
  }
  if (sameJson(spec, live.spec)) return [];
  const changed = !sameJson(withoutReplicas(spec), withoutReplicas(live.spec));
  const updated: WorkloadEvent = {
    type: 'WorkloadUpdated',
    data: { workloadId: live.workloadId, generation: state.generation + 1, spec },
  };
  const replaced = changed ? stopRequests(state, 'replaced: spec changed') : [];
  const ids = new Set(replaced.map((e) => (e.data as { allocationId: string }).allocationId));
  const scaledDown = stopRequests(
    state,
    'scaled down',
    (a) => a.instance >= spec.replicas && !ids.has(a.allocationId),
  );
  return [updated, ...replaced, ...scaledDown];
}

/** Decides what a command on one workload causes; throws DomainError when refused. */
export function decideWorkload(command: WorkloadCommand, state: WorkloadState): WorkloadEvent[] {
  switch (command.type) {
    case 'Submit':
      return submit(command, state);
    case 'RecordDecision':
      return recordDecision(command.decision, state);
    case 'RecordStarted': {
      const allocation = requireAllocation(state, command.allocationId, command.nodeId);
      if (allocation.status !== 'placed') return [];
      const { allocationId, pid, at, ports } = command;
      return [
        {
          type: 'AllocationStarted',
          data: {
            workloadId: state.workloadId as string,
            allocationId,
            nodeId: allocation.nodeId,
            pid,
            startedAt: at,
            ...(ports?.length ? { ports: [...ports] } : {}),
          },
        },
      ];
    }
    case 'RecordEnded':
      return recordEnded(command, state);
    case 'MarkLost': {
      const allocation = requireAllocation(state, command.allocationId, command.nodeId);
      if (!ACTIVE_ALLOCATION.has(allocation.status)) return [];
      const data = {
        workloadId: state.workloadId as string,
        allocationId: command.allocationId,
        nodeId: allocation.nodeId,
        reason: command.reason,
        lostAt: command.at,
      };
      return [{ type: 'AllocationLost', data }];
    }
    case 'RequestStop': {
      const { workloadId } = requireLive(state);
      const stops = stopRequests(state, command.reason);
      if (state.desired === 'stopped' && stops.length === 0) return [];
      return [{ type: 'WorkloadStopRequested', data: { workloadId, reason: command.reason } }, ...stops];
    }
    case 'RequestRestart': {
      const { workloadId } = requireLive(state);
      const stops = stopRequests(state, `restart: ${command.reason}`);
      return [{ type: 'WorkloadRestartRequested', data: { workloadId, reason: command.reason } }, ...stops];
    }
    case 'Update':
      return update(command.spec, state);
    case 'Delete': {
      if (state.deleted) return [];
      const { workloadId } = requireLive(state);
      const stops = stopRequests(state, `deleted: ${command.reason}`);
      return [{ type: 'WorkloadDeleted', data: { workloadId, reason: command.reason } }, ...stops];
    }
    default:
      return assertNever(command);
  }
}

/** The workload decider: submission, scheduling verdicts, allocation lifecycle, user operations. */
export const workloadDecider = {
  initialState: initialWorkloadState,
  decide: decideWorkload,
  evolve: evolveWorkload,
};
