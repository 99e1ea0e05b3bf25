import { Position, RecordedEventOf, RecordedHcnEvent, isEventOfTypes, parsePosition } from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  InstanceStatus,
  WorkloadEvent,
  WorkloadState,
  workloadDecider,
} from '@hcn/domain';
import type { CommandContext } from '@hcn/commands';
import type { Clock } from '../tokens';

/** Allocation end events: the node's capacity goes back. */
export const ENDED = {
  AllocationCompleted: true,
  AllocationFailed: true,
  AllocationStopped: true,
  AllocationLost: true,
};

/** An event of a workload stream, as recorded. */
export type RecordedWorkloadEvent = RecordedEventOf<WorkloadEvent['type']>;
/** A node went offline or was deregistered, as recorded: its active allocations are lost. */
export type NodeWentOffline = RecordedEventOf<'NodeWentOffline' | 'NodeDeregistered'>;

/** True for the events after which a node's active allocations are lost. */
export function isNodeLeaving(event: { type: string }): event is NodeWentOffline {
  return event.type === 'NodeWentOffline' || event.type === 'NodeDeregistered';
}
/** Instance statuses after which nothing happens unless a user acts (restart, update, delete). */
const ENDED_INSTANCE: ReadonlySet<InstanceStatus> = new Set(['completed', 'failed', 'stopped']);

/**
 * What the saga reads: every workload event but the (large) delegation records of older logs (WorkloadDelegated;
 * DelegationRejected is read for a site's refusal, which sends the instance back to be decided), and nodes leaving.
 */
export const SAGA_EVENT_TYPES = [
  'WorkloadSubmitted',
  'AllocationPlaced',
  'AllocationDelegated',
  'DelegationAccepted',
  'DelegationRejected',
  'WorkloadUnschedulable',
  'AllocationStarted',
  'AllocationCompleted',
  'AllocationFailed',
  'AllocationLost',
  'WorkloadStopRequested',
  'AllocationStopRequested',
  'AllocationStopped',
  'WorkloadRestartRequested',
  'WorkloadUpdated',
  'WorkloadDeleted',
  'NodeWentOffline',
  'NodeDeregistered',
  'AllocationUnknown',
  'AllocationReachable',
  'SiteWentOffline',
  'SiteCameOnline',
];

/** The context of what the scheduler saga appends: caused by `cause`, correlated with `correlation`. */
export function sagaContext(clock: Clock, cause: string, correlation: string): CommandContext {
  return {
    correlationId: correlation,
    causationId: cause,
    actor: { kind: 'system', id: 'scheduler' },
    now: clock(),
  };
}

/** A workload that should run and has an instance the scheduler found no room for. */
export function waitsForCapacity(state: WorkloadState): boolean {
  return (
    state.desired === 'running' && !state.deleted && state.instances.some((i) => i.status === 'unschedulable')
  );
}

/** The log position a decision recorded by `event` was taken on: its basis, else the event's own position. */
export function decidedOn(event: RecordedWorkloadEvent): Position {
  const basis = event.type === 'WorkloadUnschedulable' ? event.data.decision?.basis : undefined;
  return basis ? parsePosition(basis.at) : event.position;
}

/** Every instance has ended (completed, failed for good, stopped) and no allocation holds capacity. */
export function hasEnded(state: WorkloadState): boolean {
  return (
    state.instances.length > 0 &&
    state.instances.every((i) => ENDED_INSTANCE.has(i.status)) &&
    !Object.values(state.allocations).some((a) => ACTIVE_ALLOCATION.has(a.status))
  );
}

/** An event of a workload stream, typed; anything else throws, as the workload decider's evolve would. */
export function asWorkloadEvent(event: RecordedHcnEvent): RecordedWorkloadEvent {
  if (isEventOfTypes(event, workloadDecider.eventTypes)) return event;
  throw new Error(`Unhandled case: ${event.type} is not a workload event`);
}
