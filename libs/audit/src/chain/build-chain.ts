import {
  CompactDecision,
  EventDataOf,
  RecordedEventOf,
  RecordedHcnEvent,
  expandDecision,
  isEventOfTypes,
  sitePlace,
} from '@hcn/contracts';
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
  EventRef,
  RequestEntryKind,
  ScopeJudging,
  TimelineEntry,
  WorkloadChain,
} from './chain.model';
import { eventRef } from './event-ref';

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

const REQUESTS = {
  WorkloadSubmitted: 'submitted',
  WorkloadStopRequested: 'stop-requested',
  WorkloadRestartRequested: 'restart-requested',
  WorkloadUpdated: 'updated',
  WorkloadDeleted: 'deleted',
} as const satisfies Record<string, RequestEntryKind>;

const ALLOCATION = {
  AllocationStarted: 'started',
  AllocationReady: 'ready',
  AllocationNotReady: 'not-ready',
  AllocationCompleted: 'completed',
  AllocationFailed: 'failed',
  AllocationLost: 'lost',
  AllocationStopRequested: 'stop-requested',
  AllocationStopped: 'stopped',
} as const satisfies Record<string, AllocationEntryKind>;

/** Allocation entries after which it still runs. */
const NOT_AN_END: ReadonlySet<AllocationEntryKind> = new Set([
  'started',
  'ready',
  'not-ready',
  'stop-requested',
]);

/** A user request on the workload, as recorded. */
type RequestEvent = RecordedEventOf<keyof typeof REQUESTS>;
/** An allocation's progress, as recorded. */
type AllocationEvent = RecordedEventOf<keyof typeof ALLOCATION>;
/** The end of a decision, as recorded. */
type DecisionEvent = RecordedEventOf<'AllocationPlaced' | 'WorkloadUnschedulable' | 'AllocationDelegated'>;

/**
 * Rebuilds a workload's delegation chain from its stream (never from read models): every decision with its hops,
 * rejections (fallbacks to peers) and outcome, every allocation outcome and every user request, in stream order.
 * Throws AUDIT.WORKLOAD_NOT_FOUND when the stream holds no submission.
 */
export function buildChain(events: readonly RecordedHcnEvent[]): WorkloadChain {
  const first = events[0];
  if (!first || first.type !== 'WorkloadSubmitted') {
    throw new AuditError('AUDIT.WORKLOAD_NOT_FOUND', 'No such workload in the log');
  }
  const submitted = first.data;
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

function apply(b: Builder, event: RecordedHcnEvent): void {
  if (event.type === 'WorkloadDelegated') return addHop(b, event);
  if (event.type === 'DelegationRejected') return addRejection(b, event);
  if (event.type === 'AllocationPlaced' || event.type === 'WorkloadUnschedulable') return close(b, event);
  if (event.type === 'AllocationDelegated') return close(b, event);
  if (event.type === 'DelegationAccepted') return addAccepted(b, event);
  if (isEventOfTypes(event, REQUESTS)) return addRequest(b, event, REQUESTS[event.type]);
  if (isEventOfTypes(event, ALLOCATION)) addAllocation(b, event, ALLOCATION[event.type]);
}

function addHop(b: Builder, event: RecordedEventOf<'WorkloadDelegated'>): void {
  const d = event.data;
  const { fromScope, to, toKind, policy, candidates, hop } = d;
  const seq = b.hopSeq++;
  b.hops.push({ ...eventRef(event), seq, hop, fromScope, to, toKind, policy, candidates, ...judgingOf(d) });
}

function addRejection(b: Builder, event: RecordedEventOf<'DelegationRejected'>): void {
  const d = event.data;
  const { scope, reason, detail, candidates } = d;
  b.rejections.push({ ...eventRef(event), scope, reason, detail, candidates, ...judgingOf(d) });
  if (d.allocationId !== undefined && d.siteId !== undefined) addRefused(b, event, d.allocationId, d.siteId);
}

/** A site's refusal of a hand-over: the delegated allocation ended without running (the instance falls back). */
function addRefused(
  b: Builder,
  event: RecordedEventOf<'DelegationRejected'>,
  allocationId: string,
  siteId: string,
) {
  const instance = b.instanceOf.get(allocationId);
  if (instance !== undefined) b.lastEnd.set(instance, 'refused-by-site');
  const code = event.data.code ? ` (${event.data.code})` : '';
  const detail = `${event.data.reason}${code}`;
  const allocation: ChainAllocationEntry = {
    ...eventRef(event),
    kind: 'refused-by-site',
    allocationId,
    nodeId: sitePlace(siteId),
    detail,
  };
  b.timeline.push({ entry: 'allocation', allocation });
}

/** How a hop's or rejection's scope was judged, when recorded (older events: undefined). */
function judgingOf(d: ScopeJudging): { judging?: ScopeJudging } {
  const { members, sampleLimit, judged, rejectedCounts, topK } = d;
  if (members === undefined && judged === undefined) return {};
  const judging = { members, sampleLimit, judged, rejectedCounts, topK };
  return { judging: Object.fromEntries(Object.entries(judging).filter(([, v]) => v !== undefined)) };
}

/** The hops and rejections a decision recorded inside its outcome event, in the chain's form, at that event. */
function addRecorded(b: Builder, event: DecisionEvent, record: CompactDecision): void {
  const ref = eventRef(event);
  const { hops, rejections } = expandDecision(record);
  for (const h of hops) {
    const { fromScope, to, toKind, policy, candidates, hop } = h;
    const seq = b.hopSeq++;
    b.hops.push({ ...ref, seq, hop, fromScope, to, toKind, policy, candidates, ...judgingOf(h) });
  }
  for (const r of rejections) {
    const { scope, reason, detail, candidates } = r;
    b.rejections.push({ ...ref, scope, reason, detail, candidates, ...judgingOf(r) });
  }
}

function close(b: Builder, event: DecisionEvent): void {
  const d = event.data;
  const ref = eventRef(event);
  if (d.decision) addRecorded(b, event, d.decision);
  const outcome = outcomeOf(event, ref);
  const decision: ChainDecision = {
    index: b.decisions.length,
    instance: d.instance,
    attempt: d.attempt,
    trigger: triggerOf(b, d.instance, d.attempt),
    hops: b.hops,
    rejections: b.rejections,
    outcome,
    ...(d.decision ? { record: d.decision } : {}),
  };
  b.decided.add(`${d.instance}#${d.attempt}`);
  b.replaced.delete(d.instance);
  if (event.type !== 'WorkloadUnschedulable') b.instanceOf.set(event.data.allocationId, d.instance);
  b.decisions.push(decision);
  b.timeline.push({ entry: 'decision', decision });
  b.hops = [];
  b.rejections = [];
}

function outcomeOf(event: DecisionEvent, ref: EventRef): ChainDecision['outcome'] {
  switch (event.type) {
    case 'AllocationPlaced':
      return { kind: 'placed', ...placedOf(event.data), event: ref };
    case 'AllocationDelegated': {
      const { allocationId, siteId, relation } = event.data;
      const chosen = event.data.decision.hops.at(-1)?.scope ?? '';
      const site = { siteId, relation };
      return {
        kind: 'placed',
        allocationId,
        nodeId: sitePlace(siteId),
        domainId: chosen ?? '',
        site,
        event: ref,
      };
    }
    case 'WorkloadUnschedulable':
      return { kind: 'unschedulable', reasons: event.data.reasons, detail: event.data.detail, event: ref };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The site that took a delegated allocation, as a timeline entry at the site's place. */
function addAccepted(b: Builder, event: RecordedEventOf<'DelegationAccepted'>): void {
  const { allocationId, siteId, siteWorkloadId } = event.data;
  const detail = `workload ${siteWorkloadId} on site ${siteId}`;
  const allocation: ChainAllocationEntry = {
    ...eventRef(event),
    kind: 'accepted-by-site',
    allocationId,
    nodeId: sitePlace(siteId),
    detail,
  };
  b.timeline.push({ entry: 'allocation', allocation });
}

function placedOf(d: EventDataOf<'AllocationPlaced'>) {
  const { allocationId, nodeId, domainId } = d;
  const devices: ChosenDevicesRecord | undefined = d.devices;
  return devices ? { allocationId, nodeId, domainId, devices } : { allocationId, nodeId, domainId };
}

function triggerOf(b: Builder, instance: number, attempt: number): DecisionTrigger {
  if (b.decided.has(`${instance}#${attempt}`)) return 'retry';
  if (attempt === 0) return instance < b.replicas ? 'submission' : 'scale-up';
  if (b.replaced.has(instance)) return 'replacement';
  const end = b.lastEnd.get(instance);
  if (end === 'lost') return 'reschedule-after-node-loss';
  if (end === 'refused-by-site') return 'fallback-after-site-refusal';
  if (end === 'failed' || end === 'completed') return 'restart-policy';
  return 'replacement';
}

function addRequest(b: Builder, event: RequestEvent, kind: RequestEntryKind): void {
  if (kind === 'restart-requested' || kind === 'updated') {
    for (const instance of b.instanceOf.values()) b.replaced.add(instance);
  }
  const request: ChainRequestEntry = { ...eventRef(event), kind, detail: requestDetail(event) };
  b.timeline.push({ entry: 'request', request });
}

function requestDetail(event: RequestEvent): string {
  switch (event.type) {
    case 'WorkloadUpdated':
      return `generation ${event.data.generation}, ${event.data.spec.replicas} replica(s)`;
    case 'WorkloadSubmitted':
      return `${event.data.spec.replicas} replica(s)`;
    default:
      return event.data.reason ?? '';
  }
}

function addAllocation(b: Builder, event: AllocationEvent, kind: AllocationEntryKind): void {
  const d = event.data;
  const instance = b.instanceOf.get(d.allocationId);
  if (instance !== undefined && !NOT_AN_END.has(kind)) {
    b.lastEnd.set(instance, kind);
  }
  const allocation: ChainAllocationEntry = {
    ...eventRef(event),
    kind,
    allocationId: d.allocationId,
    nodeId: d.nodeId,
    detail: allocationDetail(event),
  };
  b.timeline.push({ entry: 'allocation', allocation });
}

function allocationDetail(event: AllocationEvent): string {
  switch (event.type) {
    case 'AllocationStarted':
      return `pid ${event.data.pid}`;
    case 'AllocationReady':
      return 'readiness probe passes';
    case 'AllocationNotReady':
      return `not ready: ${event.data.reason}`;
    case 'AllocationCompleted':
      return `exit ${event.data.exitCode}`;
    case 'AllocationFailed': {
      const d = event.data;
      return `${d.reason} (exit ${d.exitCode ?? '-'}, signal ${d.signal ?? '-'})`;
    }
    case 'AllocationLost':
      return String(event.data.reason);
    case 'AllocationStopRequested':
      return `${event.data.reason} (grace ${event.data.gracePeriodSeconds}s)`;
    case 'AllocationStopped':
      return `ended by ${event.data.endedBy} (exit ${event.data.exitCode ?? '-'})`;
    default: {
      const never: never = event;
      return never;
    }
  }
}
