import type { EventDataOf, RecordedEvent } from '@hcn/contracts';
import { AuditError } from '../errors';
import type {
  AllocationEntryKind,
  ChainAllocationEntry,
  ChainDecision,
  ChainHop,
  ChainRejection,
  ChainRequestEntry,
  ChosenDevicesRecord,
  DecisionTrigger,
  RequestEntryKind,
  TimelineEntry,
  WorkloadChain,
} from './chain.model';
import { eventRef } from './event-ref';

type Data<T extends 'WorkloadDelegated' | 'DelegationRejected'> = EventDataOf<T>;

function dataOf<T extends 'WorkloadDelegated' | 'DelegationRejected'>(
  event: RecordedEvent,
  _type: T,
): Data<T> {
  return event.data as Data<T>;
}

/** Fold state of the chain builder. */
interface Builder {
  readonly decisions: ChainDecision[];
  readonly timeline: TimelineEntry[];
  hops: ChainHop[];
  rejections: ChainRejection[];
  hopSeq: number;
  replicas: number;
  /** Instance -> how its last allocation ended. */
  readonly lastEnd: Map<number, AllocationEntryKind>;
  /** `instance#attempt` keys that already had a decision. */
  readonly decided: Set<string>;
  /** Allocation id -> instance. */
  readonly instanceOf: Map<string, number>;
  readonly replaced: Set<number>;
}

const REQUESTS: Record<string, RequestEntryKind> = {
  WorkloadSubmitted: 'submitted',
  WorkloadStopRequested: 'stop-requested',
  WorkloadRestartRequested: 'restart-requested',
  WorkloadUpdated: 'updated',
  WorkloadDeleted: 'deleted',
};

const ALLOCATION: Record<string, AllocationEntryKind> = {
  AllocationStarted: 'started',
  AllocationCompleted: 'completed',
  AllocationFailed: 'failed',
  AllocationLost: 'lost',
  AllocationStopRequested: 'stop-requested',
  AllocationStopped: 'stopped',
};

/**
 * Rebuilds a workload's delegation chain from its stream (never from read models): every decision with its hops,
 * rejections (fallbacks to peers) and outcome, every allocation outcome and every user request, in stream order.
 * Throws AUDIT.WORKLOAD_NOT_FOUND when the stream holds no submission.
 */
export function buildChain(events: readonly RecordedEvent[]): WorkloadChain {
  const first = events[0];
  if (!first || first.type !== 'WorkloadSubmitted') {
    throw new AuditError('AUDIT.WORKLOAD_NOT_FOUND', 'No such workload in the log');
  }
  const submitted = first.data as EventDataOf<'WorkloadSubmitted'>;
  const b: Builder = {
    decisions: [],
    timeline: [],
    hops: [],
    rejections: [],
    hopSeq: 0,
    replicas: submitted.spec.replicas,
    lastEnd: new Map(),
    decided: new Set(),
    instanceOf: new Map(),
    replaced: new Set(),
  };
  for (const event of events) apply(b, event);
  return {
    workloadId: submitted.workloadId,
    namespace: submitted.spec.namespace,
    name: submitted.spec.name,
    events: events.length,
    decisions: b.decisions,
    timeline: b.timeline,
  };
}

function apply(b: Builder, event: RecordedEvent): void {
  if (event.type === 'WorkloadDelegated') return addHop(b, event, dataOf(event, 'WorkloadDelegated'));
  if (event.type === 'DelegationRejected') return addRejection(b, event, dataOf(event, 'DelegationRejected'));
  if (event.type === 'AllocationPlaced' || event.type === 'WorkloadUnschedulable') return close(b, event);
  const request = REQUESTS[event.type];
  if (request) return addRequest(b, event, request);
  const allocation = ALLOCATION[event.type];
  if (allocation) addAllocation(b, event, allocation);
}

function addHop(b: Builder, event: RecordedEvent, d: Data<'WorkloadDelegated'>): void {
  const { fromScope, to, toKind, policy, candidates, hop } = d;
  const seq = b.hopSeq++;
  b.hops.push({ ...eventRef(event), seq, hop, fromScope, to, toKind, policy, candidates, ...samplingOf(d) });
}

function addRejection(b: Builder, event: RecordedEvent, d: Data<'DelegationRejected'>): void {
  const { scope, reason, detail, candidates } = d;
  b.rejections.push({ ...eventRef(event), scope, reason, detail, candidates, ...samplingOf(d) });
}

/** The sampling fields of a hop or rejection, when recorded. */
function samplingOf(d: { members?: number; sampleLimit?: number }): {
  members?: number;
  sampleLimit?: number;
} {
  return {
    ...(d.members !== undefined ? { members: d.members } : {}),
    ...(d.sampleLimit !== undefined ? { sampleLimit: d.sampleLimit } : {}),
  };
}

function close(b: Builder, event: RecordedEvent): void {
  const d = event.data as EventDataOf<'AllocationPlaced'> | EventDataOf<'WorkloadUnschedulable'>;
  const ref = eventRef(event);
  const outcome: ChainDecision['outcome'] =
    'allocationId' in d
      ? { kind: 'placed', ...placedOf(d), event: ref }
      : { kind: 'unschedulable', reasons: d.reasons, detail: d.detail, event: ref };
  const decision: ChainDecision = {
    index: b.decisions.length,
    instance: d.instance,
    attempt: d.attempt,
    trigger: triggerOf(b, d.instance, d.attempt),
    hops: b.hops,
    rejections: b.rejections,
    outcome,
  };
  b.decided.add(`${d.instance}#${d.attempt}`);
  b.replaced.delete(d.instance);
  if ('allocationId' in d) b.instanceOf.set(d.allocationId, d.instance);
  b.decisions.push(decision);
  b.timeline.push({ entry: 'decision', decision });
  b.hops = [];
  b.rejections = [];
}

function placedOf(d: EventDataOf<'AllocationPlaced'>) {
  const { allocationId, nodeId, domainId } = d;
  const devices = (d as { devices?: ChosenDevicesRecord }).devices;
  return devices ? { allocationId, nodeId, domainId, devices } : { allocationId, nodeId, domainId };
}

function triggerOf(b: Builder, instance: number, attempt: number): DecisionTrigger {
  if (b.decided.has(`${instance}#${attempt}`)) return 'retry';
  if (attempt === 0) return instance < b.replicas ? 'submission' : 'scale-up';
  if (b.replaced.has(instance)) return 'replacement';
  const end = b.lastEnd.get(instance);
  if (end === 'lost') return 'reschedule-after-node-loss';
  if (end === 'failed' || end === 'completed') return 'restart-policy';
  return 'replacement';
}

function addRequest(b: Builder, event: RecordedEvent, kind: RequestEntryKind): void {
  const data = event.data as { reason?: string; generation?: number; spec?: { replicas: number } };
  if (kind === 'restart-requested' || kind === 'updated') {
    for (const instance of b.instanceOf.values()) b.replaced.add(instance);
  }
  const detail =
    kind === 'updated'
      ? `generation ${data.generation}, ${data.spec?.replicas} replica(s)`
      : kind === 'submitted'
        ? `${data.spec?.replicas} replica(s)`
        : (data.reason ?? '');
  const request: ChainRequestEntry = { ...eventRef(event), kind, detail };
  b.timeline.push({ entry: 'request', request });
}

function addAllocation(b: Builder, event: RecordedEvent, kind: AllocationEntryKind): void {
  const d = event.data as { allocationId: string; nodeId: string } & Record<string, unknown>;
  const instance = b.instanceOf.get(d.allocationId);
  if (instance !== undefined && kind !== 'started' && kind !== 'stop-requested') {
    b.lastEnd.set(instance, kind);
  }
  const allocation: ChainAllocationEntry = {
    ...eventRef(event),
    kind,
    allocationId: d.allocationId,
    nodeId: d.nodeId,
    detail: allocationDetail(kind, d),
  };
  b.timeline.push({ entry: 'allocation', allocation });
}

function allocationDetail(kind: AllocationEntryKind, d: Record<string, unknown>): string {
  switch (kind) {
    case 'started':
      return `pid ${d.pid}`;
    case 'completed':
      return `exit ${d.exitCode}`;
    case 'failed':
      return `${d.reason} (exit ${d.exitCode ?? '-'}, signal ${d.signal ?? '-'})`;
    case 'lost':
      return String(d.reason);
    case 'stop-requested':
      return `${d.reason} (grace ${d.gracePeriodSeconds}s)`;
    case 'stopped':
      return `ended by ${d.endedBy} (exit ${d.exitCode ?? '-'})`;
    default: {
      const never: never = kind;
      return never;
    }
  }
}
