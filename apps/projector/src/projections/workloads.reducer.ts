import {
  EventDataOf,
  HcnEvent,
  RecordedEvent,
  RecordedEventOf,
  RecordedHcnEvent,
  isEventOfTypes,
} from '@hcn/contracts';
import type { AllocationStatus, InstanceStatus, WorkloadInstance } from '@hcn/read-models';
import {
  ACTIVE_INSTANCE_STATUSES,
  AllocationModel,
  WorkloadModel,
  deriveWorkloadStatus,
  isTerminal,
  later,
  normalizeInstances,
  pendingInstance,
} from './workloads.model';

/** Workloads and allocations touched by a batch, loaded before and written after it is applied. */
export interface WorkloadBook {
  readonly workloads: Map<string, WorkloadModel>;
  readonly allocations: Map<string, AllocationModel>;
  /** Allocations created or changed by the batch (to write back). */
  readonly changedAllocations: Set<string>;
}

/** Events of workload-* streams. */
export type WorkloadEvent = Extract<
  HcnEvent,
  { type: `Workload${string}` | `Allocation${string}` | `Delegation${string}` }
>;

/** Events of workload-* streams, as recorded. */
export type RecordedWorkloadEvent = RecordedEventOf<WorkloadEvent['type']>;

/** The workload event types, each named once. */
const WORKLOAD_EVENT_TYPES: Readonly<Record<WorkloadEvent['type'], true>> = {
  WorkloadSubmitted: true,
  WorkloadDelegated: true,
  DelegationRejected: true,
  AllocationPlaced: true,
  WorkloadUnschedulable: true,
  AllocationStarted: true,
  AllocationCompleted: true,
  AllocationFailed: true,
  AllocationLost: true,
  WorkloadStopRequested: true,
  AllocationStopRequested: true,
  AllocationStopped: true,
  WorkloadRestartRequested: true,
  WorkloadUpdated: true,
  WorkloadDeleted: true,
};

/** True for an event of a workload stream. */
export function isWorkloadEvent(event: RecordedHcnEvent): event is RecordedWorkloadEvent {
  return isEventOfTypes(event, WORKLOAD_EVENT_TYPES);
}

type Terminal = 'AllocationCompleted' | 'AllocationFailed' | 'AllocationStopped' | 'AllocationLost';
const TERMINAL_STATUS: Record<Terminal, AllocationStatus> = {
  AllocationCompleted: 'completed',
  AllocationFailed: 'failed',
  AllocationStopped: 'stopped',
  AllocationLost: 'lost',
};

/** An empty book. */
export function emptyBook(): WorkloadBook {
  return { workloads: new Map(), allocations: new Map(), changedAllocations: new Set() };
}

/**
 * Applies one event of a workload stream to the book. Events at or below the workload's last applied revision are
 * skipped, so replaying any batch changes nothing. Returns the workload id when the event was applied.
 */
export function applyWorkloadEvent(book: WorkloadBook, event: RecordedWorkloadEvent): string | undefined {
  const recorded = event;
  const workloadId = event.data.workloadId;
  const existing = book.workloads.get(workloadId);
  if (event.type === 'WorkloadSubmitted') {
    if (existing) return undefined;
    book.workloads.set(workloadId, submitted(event.data, recorded));
    return workloadId;
  }
  if (!existing || recorded.revision <= existing.lastRevision) return undefined;
  applyToWorkload(book, existing, event, recorded.recordedAt);
  existing.lastRevision = recorded.revision;
  existing.updatedAt = later(existing.updatedAt, recorded.recordedAt);
  normalizeInstances(existing);
  existing.status = deriveWorkloadStatus(existing);
  return workloadId;
}

function submitted(data: EventDataOf<'WorkloadSubmitted'>, recorded: RecordedEvent): WorkloadModel {
  const { spec } = data;
  const workload: WorkloadModel = {
    workloadId: data.workloadId,
    namespace: spec.namespace,
    name: spec.name,
    type: spec.type,
    status: 'pending',
    priority: spec.priority,
    replicas: spec.replicas,
    generation: 1,
    spec,
    instances: Array.from({ length: spec.replicas }, (_, i) => pendingInstance(i)),
    hops: 0,
    stopRequested: false,
    deleted: false,
    submittedAt: recorded.recordedAt,
    updatedAt: recorded.recordedAt,
    lastRevision: recorded.revision,
  };
  workload.status = deriveWorkloadStatus(workload);
  return workload;
}

function applyToWorkload(
  book: WorkloadBook,
  workload: WorkloadModel,
  event: WorkloadEvent,
  at: string,
): void {
  switch (event.type) {
    case 'WorkloadSubmitted':
    case 'DelegationRejected':
      return;
    case 'WorkloadDelegated':
      workload.hops += 1;
      return;
    case 'AllocationPlaced':
      return placed(book, workload, event.data, at);
    case 'WorkloadUnschedulable': {
      const entry = instanceAt(workload, event.data.instance);
      if (entry) entry.status = 'unschedulable';
      return;
    }
    case 'AllocationStarted':
      return started(book, workload, event.data, at);
    case 'AllocationStopRequested':
      return stopping(book, workload, event.data.allocationId, at);
    case 'AllocationCompleted':
    case 'AllocationFailed':
    case 'AllocationStopped':
    case 'AllocationLost':
      return ended(book, workload, event, at);
    case 'WorkloadStopRequested':
      return stopWaiting(workload);
    case 'WorkloadRestartRequested':
      return restarted(workload);
    case 'WorkloadUpdated':
      return updated(workload, event.data);
    case 'WorkloadDeleted':
      workload.deleted = true;
      return stopWaiting(workload);
    default: {
      const unreachable: never = event;
      throw new Error(`Unhandled workload event ${JSON.stringify(unreachable)}`);
    }
  }
}

function instanceAt(workload: WorkloadModel, index: number): WorkloadInstance | undefined {
  return workload.instances.find((i) => i.instance === index);
}

function currentInstance(workload: WorkloadModel, allocationId: string): WorkloadInstance | undefined {
  return workload.instances.find((i) => i.allocationId === allocationId);
}

function isActive(entry: WorkloadInstance): boolean {
  return ACTIVE_INSTANCE_STATUSES.includes(entry.status);
}

function placed(
  book: WorkloadBook,
  workload: WorkloadModel,
  data: EventDataOf<'AllocationPlaced'>,
  at: string,
): void {
  if (!book.allocations.has(data.allocationId)) {
    book.allocations.set(data.allocationId, newAllocation(workload, data, at));
    book.changedAllocations.add(data.allocationId);
  }
  const entry = instanceAt(workload, data.instance);
  if (!entry) return;
  Object.assign(entry, {
    attempt: data.attempt,
    status: 'placed',
    allocationId: data.allocationId,
    nodeId: data.nodeId,
    replace: false,
  });
}

function newAllocation(
  workload: WorkloadModel,
  data: EventDataOf<'AllocationPlaced'>,
  at: string,
): AllocationModel {
  return {
    allocationId: data.allocationId,
    workloadId: workload.workloadId,
    namespace: workload.namespace,
    instance: data.instance,
    attempt: data.attempt,
    generation: data.generation,
    nodeId: data.nodeId,
    domainId: data.domainId,
    status: 'placed',
    resources: data.resources,
    exitCode: null,
    signal: null,
    reason: null,
    pid: null,
    placedAt: at,
    startedAt: null,
    endedAt: null,
    updatedAt: at,
  };
}

/** The allocation of an event when it belongs to this workload, marked as changed at `at`. */
function touch(book: WorkloadBook, workload: WorkloadModel, allocationId: string, at: string) {
  const allocation = book.allocations.get(allocationId);
  if (!allocation || allocation.workloadId !== workload.workloadId) return undefined;
  allocation.updatedAt = later(allocation.updatedAt, at);
  book.changedAllocations.add(allocationId);
  return allocation;
}

function started(
  book: WorkloadBook,
  workload: WorkloadModel,
  data: EventDataOf<'AllocationStarted'>,
  at: string,
): void {
  const allocation = touch(book, workload, data.allocationId, at);
  if (!allocation) return;
  allocation.startedAt ??= data.startedAt;
  allocation.pid ??= data.pid;
  if (allocation.status !== 'placed') return;
  allocation.status = 'running';
  const entry = currentInstance(workload, data.allocationId);
  if (entry?.status === 'placed') entry.status = 'running';
}

function stopping(book: WorkloadBook, workload: WorkloadModel, allocationId: string, at: string): void {
  const allocation = touch(book, workload, allocationId, at);
  if (!allocation || isTerminal(allocation.status)) return;
  allocation.status = 'stopping';
  const entry = currentInstance(workload, allocationId);
  if (entry) entry.status = 'stopping';
}

function ended(
  book: WorkloadBook,
  workload: WorkloadModel,
  event: Extract<WorkloadEvent, { type: Terminal }>,
  at: string,
): void {
  const allocation = touch(book, workload, event.data.allocationId, at);
  if (!allocation || isTerminal(allocation.status)) return; // the first report of an end wins
  const status = TERMINAL_STATUS[event.type];
  allocation.status = status;
  if (event.type === 'AllocationLost') {
    allocation.reason = event.data.reason;
    allocation.endedAt = event.data.lostAt;
  } else {
    allocation.endedAt = event.data.endedAt;
    allocation.exitCode = event.data.exitCode;
    if (event.type !== 'AllocationCompleted') allocation.signal = event.data.signal;
    if (event.type === 'AllocationFailed') allocation.reason = event.data.reason;
  }
  const entry = instanceAt(workload, allocation.instance);
  if (entry?.allocationId === allocation.allocationId) afterEnd(workload, entry, status);
}

/**
 * What an instance becomes when its allocation ended, by the same rules as the workload decider (libs/domain), so
 * this list agrees with the workload read from its stream: a stopped or deleted workload keeps the outcome (a
 * completion, else stopped); a replaced allocation and a restart by policy make the instance wait for its next
 * attempt; otherwise it keeps the outcome. Instances above the replica count leave (normalizeInstances).
 */
function afterEnd(workload: WorkloadModel, entry: WorkloadInstance, outcome: AllocationStatus): void {
  if (workload.stopRequested || workload.deleted) {
    entry.status = outcome === 'completed' ? 'completed' : 'stopped';
    return;
  }
  const next = (retries: number): void =>
    void Object.assign(entry, pendingInstance(entry.instance, entry.attempt + 1, retries));
  if (entry.replace) return next(entry.retries);
  const policy = workload.spec.restartPolicy;
  const restart =
    policy.policy === 'always' ||
    (policy.policy === 'on-failure' && outcome !== 'completed' && entry.retries < policy.maxRetries);
  if (restart) return next(entry.retries + 1);
  entry.status = outcome as InstanceStatus;
}

/** A stop (or deletion) ends the instances still waiting for a placement. */
function stopWaiting(workload: WorkloadModel): void {
  workload.stopRequested = true;
  for (const entry of workload.instances) {
    if (entry.status === 'pending' || entry.status === 'unschedulable') entry.status = 'stopped';
  }
}

/** A restart replaces live allocations and sends ended instances back to the scheduler (retries start over). */
function restarted(workload: WorkloadModel): void {
  workload.stopRequested = false;
  for (const entry of workload.instances) {
    if (isActive(entry)) entry.replace = true;
    else if (entry.status !== 'pending' && entry.status !== 'unschedulable')
      Object.assign(entry, pendingInstance(entry.instance, entry.attempt + 1, 0));
  }
}

/** Key-order independent JSON (stored jsonb reorders keys). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** A new spec: live allocations are replaced when more than the replica count changed. */
function updated(workload: WorkloadModel, data: EventDataOf<'WorkloadUpdated'>): void {
  const changed = canonical({ ...workload.spec, replicas: 0 }) !== canonical({ ...data.spec, replicas: 0 });
  if (changed) workload.instances.filter(isActive).forEach((entry) => (entry.replace = true));
  Object.assign(workload, {
    generation: data.generation,
    spec: data.spec,
    name: data.spec.name,
    type: data.spec.type,
    priority: data.spec.priority,
    replicas: data.spec.replicas,
  });
}
