import { RUNNABLE_WORKLOAD_TYPES, isServiceType, type WorkloadSpec } from '@hcn/contracts';
import { EventTypes, defineDecider } from '../decider';
import { sameJson } from '../equality';
import { DomainError, assertNever } from '../errors';
import type { DecisionRecord, WorkloadCommand, WorkloadEvent } from './workload.commands';
import { recordEnded, recordReadiness } from './workload.lifecycle';
import { evolveWorkload } from './workload.evolve';
import { isService, rolloutStep, stateAfter } from './service.rollout';
import { delegated, delegationAccepted, delegationRejected, foreignDelegation } from './workload.delegation';
import {
  giveUp,
  markUnknown,
  notUnknown,
  recordSiteStatus,
  siteWorkloadMismatch,
} from './workload.site-status';
import {
  ACTIVE_ALLOCATION,
  AllocationView,
  WAITING_INSTANCE,
  WorkloadState,
  initialWorkloadState,
} from './workload.state';

/** A workload that exists and is not deleted: its id and spec. */
interface LiveWorkload {
  readonly workloadId: string;
  readonly spec: WorkloadSpec;
}

/** The workload's id and spec while it exists and is not deleted. */
function liveOf(state: WorkloadState): LiveWorkload | undefined {
  if (!state.exists || !state.workloadId || !state.spec || state.deleted) return undefined;
  return { workloadId: state.workloadId, spec: state.spec };
}

/** Commands on a workload that does not exist (WORKLOAD.NOT_FOUND) or was deleted (WORKLOAD.DELETED) are refused. */
function notLive(state: WorkloadState): DomainError | undefined {
  if (!state.exists || !state.workloadId || !state.spec)
    return new DomainError('WORKLOAD.NOT_FOUND', 'Workload does not exist');
  if (state.deleted)
    return new DomainError('WORKLOAD.DELETED', `Workload ${state.workloadId} was deleted`, {
      workloadId: state.workloadId,
    });
  return undefined;
}

function unsupported(spec: WorkloadSpec): DomainError | undefined {
  if (RUNNABLE_WORKLOAD_TYPES.includes(spec.type)) return undefined;
  return new DomainError(
    'WORKLOAD.TYPE_UNSUPPORTED',
    `Workload type ${spec.type} is not supported yet; use process, container, service or model`,
    { type: spec.type },
  );
}

/** A report about an allocation must name one of this workload's, on the node it was placed on. */
function foreignAllocation(
  state: WorkloadState,
  allocationId: string,
  nodeId?: string,
): DomainError | undefined {
  const allocation = state.allocations[allocationId];
  if (!allocation)
    return new DomainError(
      'WORKLOAD.ALLOCATION_NOT_FOUND',
      `Allocation ${allocationId} is not part of this workload`,
      { allocationId },
    );
  if (nodeId !== undefined && allocation.nodeId !== nodeId)
    return new DomainError(
      'AUTH.ALLOCATION_NOT_ON_NODE',
      `Allocation ${allocationId} does not run on node ${nodeId}`,
      { allocationId, nodeId },
    );
  return undefined;
}

/** Stop requests for active allocations matching `which` that were not asked to stop already. */
function stopRequests(
  state: WorkloadState,
  { workloadId, spec }: LiveWorkload,
  reason: string,
  which: (a: AllocationView) => boolean = () => true,
): WorkloadEvent[] {
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

/** A submission of a new workload, or the same one again (a no-op); another spec under its id is a conflict. */
function submissionRefusal(command: WorkloadCommand & { type: 'Submit' }, state: WorkloadState) {
  const refusal = unsupported(command.spec);
  if (refusal || !state.exists || (sameJson(state.spec, command.spec) && !state.deleted)) return refusal;
  return new DomainError(
    'WORKLOAD.IDEMPOTENCY_CONFLICT',
    'A different workload was already submitted with this idempotency key',
    { workloadId: command.workloadId, idempotencyKey: command.idempotencyKey },
  );
}

function submit(command: WorkloadCommand & { type: 'Submit' }, state: WorkloadState): WorkloadEvent[] {
  if (state.exists) return [];
  const { workloadId, spec, idempotencyKey, delegatedFrom } = command;
  const data = { workloadId, spec, idempotencyKey, ...(delegatedFrom ? { delegatedFrom } : {}) };
  return [{ type: 'WorkloadSubmitted', data }];
}

/** A scheduling verdict must be for an instance's attempt that waits for one, of a live workload meant to run. */
function staleDecision({ instance, attempt }: DecisionRecord, state: WorkloadState): DomainError | undefined {
  const refusal = notLive(state);
  if (refusal) return refusal;
  const current = state.instances.find((i) => i.instance === instance);
  const waiting = current && WAITING_INSTANCE.has(current.status) && current.attempt === attempt;
  if (waiting && state.desired === 'running') return undefined;
  return new DomainError(
    'WORKLOAD.STALE_DECISION',
    `Instance ${instance} attempt ${attempt} is not waiting for a placement`,
    { workloadId: state.workloadId, instance, attempt, status: current?.status ?? 'absent' },
  );
}

function recordDecision(decision: DecisionRecord, state: WorkloadState): WorkloadEvent[] {
  const live = liveOf(state);
  const { instance, attempt } = decision;
  const current = state.instances.find((i) => i.instance === instance);
  if (!live || !current) return [];
  const { workloadId, spec } = live;
  const outcome = decision.outcome;
  if (
    outcome.kind === 'unschedulable' &&
    current.status === 'unschedulable' &&
    sameJson(current.unschedulableReasons, outcome.reasons)
  )
    return [];
  const base = { workloadId, instance, attempt };
  if (outcome.kind === 'delegated') return delegated(state, decision, outcome);
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
      decision: decision.decision,
    };
    return [{ type: 'AllocationPlaced', data }];
  }
  const { reasons, detail } = outcome;
  const data = { ...base, reasons: { ...reasons }, detail, decision: decision.decision };
  return [{ type: 'WorkloadUnschedulable', data }];
}

function withoutReplicas(spec: WorkloadSpec): Omit<WorkloadSpec, 'replicas'> {
  const { replicas: _replicas, ...rest } = spec;
  return rest;
}

/** An update must keep a live workload in its namespace, with a supported type. */
function updateRefusal(spec: WorkloadSpec, state: WorkloadState): DomainError | undefined {
  const refusal = notLive(state) ?? unsupported(spec);
  if (refusal || spec.namespace === state.spec?.namespace) return refusal;
  return new DomainError('WORKLOAD.NAMESPACE_IMMUTABLE', 'A workload cannot move to another namespace', {
    workloadId: state.workloadId,
  });
}

function update(spec: WorkloadSpec, state: WorkloadState): WorkloadEvent[] {
  const live = liveOf(state);
  if (!live || sameJson(spec, live.spec)) return [];
  const changed = !sameJson(withoutReplicas(spec), withoutReplicas(live.spec));
  const updated: WorkloadEvent = {
    type: 'WorkloadUpdated',
    data: { workloadId: live.workloadId, generation: state.generation + 1, spec },
  };
  // a service (or model) is replaced one replica at a time (rolloutStep); other workloads all at once
  const rolling = changed && isServiceType(spec.type);
  const replaced = changed && !rolling ? stopRequests(state, live, 'replaced: spec changed') : [];
  const ids = new Set(
    replaced.flatMap((e) => (e.type === 'AllocationStopRequested' ? [e.data.allocationId] : [])),
  );
  const scaledDown = stopRequests(
    state,
    live,
    'scaled down',
    (a) => a.instance >= spec.replicas && !ids.has(a.allocationId),
  );
  const events = [updated, ...replaced, ...scaledDown];
  return rolling ? [...events, ...rolloutStep(stateAfter(state, events), 'rolling update')] : events;
}

/** Why a command on one workload is refused, or undefined when it is accepted (a no-op included). */
export function validateWorkload(command: WorkloadCommand, state: WorkloadState): DomainError | undefined {
  switch (command.type) {
    case 'Submit':
      return submissionRefusal(command, state);
    case 'RecordDecision':
      return staleDecision(command.decision, state);
    case 'RecordStarted':
    case 'RecordReadiness':
    case 'RecordEnded':
    case 'MarkLost':
      return foreignAllocation(state, command.allocationId, command.nodeId);
    case 'RecordDelegationAccepted':
    case 'RecordDelegationRejected':
    case 'MarkUnknown':
      return foreignDelegation(state, command.allocationId, command.siteId);
    case 'RecordSiteStatus':
      return (
        foreignDelegation(state, command.allocationId, command.siteId) ?? siteWorkloadMismatch(command, state)
      );
    case 'GiveUp':
      return foreignAllocation(state, command.allocationId) ?? notUnknown(state, command.allocationId);
    case 'RequestStop':
    case 'RequestRestart':
      return notLive(state);
    case 'Update':
      return updateRefusal(command.spec, state);
    case 'Delete':
      return state.deleted ? undefined : notLive(state);
    default:
      return assertNever(command);
  }
}

/** Decides what an accepted command on one workload causes. */
function decideAcceptedWorkload(command: WorkloadCommand, state: WorkloadState): WorkloadEvent[] {
  switch (command.type) {
    case 'Submit':
      return submit(command, state);
    case 'RecordDecision':
      return recordDecision(command.decision, state);
    case 'RecordStarted': {
      const allocation = state.allocations[command.allocationId];
      if (allocation?.status !== 'placed' || !state.workloadId) return [];
      const { allocationId, pid, at, ports } = command;
      const started: WorkloadEvent = {
        type: 'AllocationStarted',
        data: {
          workloadId: state.workloadId,
          allocationId,
          nodeId: allocation.nodeId,
          pid,
          startedAt: at,
          ...(ports?.length ? { ports: [...ports] } : {}),
        },
      };
      // a service without a readiness probe is ready once started: the rolling replacement may go on
      return [started, ...rolloutStep(stateAfter(state, [started]), 'rolling update')];
    }
    case 'RecordReadiness':
      return recordReadiness(command, state);
    case 'RecordEnded':
      return recordEnded(command, state);
    case 'MarkLost': {
      const allocation = state.allocations[command.allocationId];
      if (!allocation || !state.workloadId || !ACTIVE_ALLOCATION.has(allocation.status)) return [];
      const data = {
        workloadId: state.workloadId,
        allocationId: command.allocationId,
        nodeId: allocation.nodeId,
        reason: command.reason,
        lostAt: command.at,
      };
      return [{ type: 'AllocationLost', data }];
    }
    case 'RecordDelegationAccepted':
      return delegationAccepted(command, state);
    case 'RecordDelegationRejected':
      return delegationRejected(command, state);
    case 'RecordSiteStatus':
      return recordSiteStatus(command, state, decideAcceptedWorkload);
    case 'MarkUnknown':
      return markUnknown(command, state);
    case 'GiveUp':
      return giveUp(command, state);
    case 'RequestStop': {
      const live = liveOf(state);
      const stops = live ? stopRequests(state, live, command.reason) : [];
      if (!live || (state.desired === 'stopped' && stops.length === 0)) return [];
      const data = { workloadId: live.workloadId, reason: command.reason };
      return [{ type: 'WorkloadStopRequested', data }, ...stops];
    }
    case 'RequestRestart': {
      const live = liveOf(state);
      if (!live) return [];
      const data = { workloadId: live.workloadId, reason: command.reason };
      const restart: WorkloadEvent = { type: 'WorkloadRestartRequested', data };
      // a service restarts one replica at a time, like a rolling update
      if (isService(state)) return [restart, ...rolloutStep(stateAfter(state, [restart]), 'rolling restart')];
      return [restart, ...stopRequests(state, live, `restart: ${command.reason}`)];
    }
    case 'Update':
      return update(command.spec, state);
    case 'Delete': {
      const live = liveOf(state);
      if (!live) return [];
      const stops = stopRequests(state, live, `deleted: ${command.reason}`);
      return [
        { type: 'WorkloadDeleted', data: { workloadId: live.workloadId, reason: command.reason } },
        ...stops,
      ];
    }
    default:
      return assertNever(command);
  }
}

/** The event types of a workload stream. */
const WORKLOAD_EVENT_TYPES: EventTypes<WorkloadEvent> = {
  WorkloadSubmitted: true,
  WorkloadDelegated: true,
  DelegationRejected: true,
  AllocationDelegated: true,
  DelegationAccepted: true,
  AllocationPlaced: true,
  WorkloadUnschedulable: true,
  AllocationStarted: true,
  AllocationReady: true,
  AllocationNotReady: true,
  AllocationCompleted: true,
  AllocationFailed: true,
  AllocationLost: true,
  WorkloadStopRequested: true,
  AllocationStopRequested: true,
  AllocationStopped: true,
  WorkloadRestartRequested: true,
  WorkloadUpdated: true,
  WorkloadDeleted: true,
  AllocationUnknown: true,
  AllocationReachable: true,
};

/** The workload decider: submission, scheduling verdicts, allocation lifecycle, user operations. */
export const workloadDecider = defineDecider({
  initialState: initialWorkloadState,
  eventTypes: WORKLOAD_EVENT_TYPES,
  validate: validateWorkload,
  decideAccepted: decideAcceptedWorkload,
  evolve: evolveWorkload,
});

/** Decides what a command on one workload causes; throws DomainError when refused. */
export const decideWorkload = workloadDecider.decide;
