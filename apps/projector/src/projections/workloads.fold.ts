import { RecordedEventOf, RecordedHcnEvent, isEventOfTypes } from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  WorkloadEvent,
  WorkloadState,
  evolveWorkload,
  initialWorkloadState,
  workloadDecider,
} from '@hcn/domain';
import { later } from './later';
import { NodeRuntimeChange, nodeRuntimeChange } from './node-runtime.fold';

/** Events of workload-* streams, as recorded. */
export type RecordedWorkloadEvent = RecordedEventOf<WorkloadEvent['type']>;

/** True for an event of a workload stream (the workload decider's event types). */
export function isWorkloadEvent(event: RecordedHcnEvent): event is RecordedWorkloadEvent {
  return isEventOfTypes(event, workloadDecider.eventTypes);
}

/** A workload as the projection folds it: the domain's state, plus what its row takes from the events' records. */
export interface FoldedWorkload {
  readonly state: WorkloadState;
  /** ISO-8601 instants, kept as read so rows are rewritten exactly. */
  readonly submittedAt: string;
  readonly updatedAt: string;
  /** Revision of the last event folded (events at or below it are skipped). */
  readonly lastRevision: number;
}

/** What an allocation's row holds besides the domain's view of it: times, pid and signal as its events report them. */
export interface AllocationFacts {
  placedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  signal: string | null;
  pid: number | null;
  updatedAt: string;
}

/** Workloads and allocations touched by a batch, loaded before and written after it is applied. */
export interface WorkloadBook {
  readonly workloads: Map<string, FoldedWorkload>;
  readonly allocations: Map<string, AllocationFacts>;
  /** Allocations created or changed by the batch (to write back), each with its workload's id. */
  readonly changedAllocations: Map<string, string>;
  /** What the applied events did to their allocations' nodes' runtime, in log order. */
  readonly runtime: NodeRuntimeChange[];
}

/** An empty book. */
export function emptyBook(): WorkloadBook {
  return { workloads: new Map(), allocations: new Map(), changedAllocations: new Map(), runtime: [] };
}

/**
 * Applies one event of a workload stream to the book: the workload's state evolves by the domain's evolve. Events at
 * or below the workload's last folded revision are skipped, so replaying any batch changes nothing. Returns the
 * workload id when the event was applied.
 */
export function applyWorkloadEvent(book: WorkloadBook, event: RecordedWorkloadEvent): string | undefined {
  const workloadId = event.data.workloadId;
  const existing = book.workloads.get(workloadId);
  const stale =
    event.type === 'WorkloadSubmitted' ? existing : !existing || event.revision <= existing.lastRevision;
  if (stale) return undefined;
  const before = existing?.state ?? initialWorkloadState;
  const state = evolveWorkload(before, event as WorkloadEvent);
  book.workloads.set(workloadId, {
    state,
    submittedAt: existing?.submittedAt ?? event.recordedAt,
    updatedAt: existing ? later(existing.updatedAt, event.recordedAt) : event.recordedAt,
    lastRevision: event.revision,
  });
  recordFacts(book, before, event);
  const change = nodeRuntimeChange(before, state, event);
  if (change) book.runtime.push(change);
  return workloadId;
}

/** Notes what an event tells about its allocation's row (an allocation of another workload is left alone). */
function recordFacts(book: WorkloadBook, before: WorkloadState, event: RecordedWorkloadEvent): void {
  if (!('allocationId' in event.data) || !event.data.allocationId) return;
  // allocations delegated to another site have no row (their place is no node of this site)
  if (event.type === 'AllocationDelegated' || event.type === 'DelegationAccepted') return;
  if (event.type === 'DelegationRejected') return;
  if (event.type === 'AllocationUnknown' || event.type === 'AllocationReachable') return; // federation: as above
  const { allocationId, workloadId } = event.data;
  const at = event.recordedAt;
  if (event.type === 'AllocationPlaced') {
    if (!book.allocations.has(allocationId)) {
      const facts = { placedAt: at, startedAt: null, endedAt: null, signal: null, pid: null, updatedAt: at };
      book.allocations.set(allocationId, facts);
    }
    book.changedAllocations.set(allocationId, workloadId);
    return;
  }
  // a service's readiness lives in the workload's state (its row's state column), not in the allocation's row
  if (event.type === 'AllocationReady' || event.type === 'AllocationNotReady') return;
  const facts = book.allocations.get(allocationId);
  const allocation = before.allocations[allocationId];
  if (!facts || !allocation) return;
  facts.updatedAt = later(facts.updatedAt, at);
  book.changedAllocations.set(allocationId, workloadId);
  if (event.type === 'AllocationStarted') {
    facts.startedAt ??= event.data.startedAt;
    facts.pid ??= event.data.pid;
  } else if (event.type === 'AllocationLost') {
    if (ACTIVE_ALLOCATION.has(allocation.status)) facts.endedAt = event.data.lostAt;
  } else if (event.type !== 'AllocationStopRequested' && ACTIVE_ALLOCATION.has(allocation.status)) {
    facts.endedAt = event.data.endedAt;
    if (event.type !== 'AllocationCompleted') facts.signal = event.data.signal;
  }
}
