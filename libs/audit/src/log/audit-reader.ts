import {
  RecordedHcnEvent,
  domainStream,
  formatPosition,
  nodeStream,
  quotaStream,
  taskQueueStream,
  workloadStream,
} from '@hcn/contracts';
import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import type { EventStore } from '@hcn/eventstore';
import { buildChain } from '../chain/build-chain';
import type { WorkloadChain } from '../chain/chain.model';
import { AuditError } from '../errors';
import {
  ClusterFoldLike,
  DecisionReplay,
  DecisionSelector,
  SnapshotAtDecision,
  decisionBasis,
} from '../replay/decision-replay';
import { ClusterCheckpoints, checkpointLimit } from '../replay/from-checkpoint';
import { REPORT_EVENT_TYPES, ReportAccumulator } from '../reports/accumulator';
import { Visible, buildReport } from '../reports/build-report';
import type { Period } from '../reports/period';
import type { ComplianceReport } from '../reports/report.model';
import { DomainAsOf, NodeAsOf, QuotaAsOf, domainAsOf, nodeAsOf, quotaAsOf } from '../time-travel/time-travel';
import { NODE_STREAM_PREFIX, NodesAt } from '../time-travel/nodes-at';
import { TaskQueueAsOf, taskQueueAsOf } from '../time-travel/taskqueue-at';
import { ScanProgress, scanLog } from './scan';

/** Reads a workload's stream; AUDIT.WORKLOAD_NOT_FOUND when it holds no submission. */
export async function readWorkload(store: EventStore, workloadId: string): Promise<RecordedHcnEvent[]> {
  const events = await store.readStream(workloadStream(workloadId));
  if (events[0]?.type !== 'WorkloadSubmitted') {
    throw new AuditError('AUDIT.WORKLOAD_NOT_FOUND', `Workload ${workloadId} is not in the log`, {
      workloadId,
    });
  }
  return events;
}

/** The namespace a workload was submitted in (for access checks before anything else is shown). */
export function namespaceOfStream(events: readonly RecordedHcnEvent[]): string {
  const first = events[0];
  if (first?.type === 'WorkloadSubmitted') return first.data.spec.namespace;
  throw new AuditError('AUDIT.WORKLOAD_NOT_FOUND', 'No such workload in the log');
}

/** Chain replay of one workload from the log. */
export async function replayChain(store: EventStore, workloadId: string): Promise<WorkloadChain> {
  return buildChain(await readWorkload(store, workloadId));
}

/** Rows per page of an explanation's scan (see explainDecision). */
const EXPLAIN_PAGE_ROWS = 1000;

/**
 * Decision replay: rebuilds the snapshot from the log up to the decision and re-runs the scheduler. With
 * `checkpoints`, the fold starts from the latest cluster checkpoint at or before the decision's recorded basis and
 * only the log after it is scanned (the same fold, the same events after it: the same snapshot).
 */
export async function explainDecision(
  store: EventStore,
  events: readonly RecordedHcnEvent[],
  selector: DecisionSelector,
  options: {
    /** The fold the snapshot is rebuilt with and the event types it follows (default: a fresh ClusterFold). */
    fold?: ClusterFoldLike;
    eventTypes?: readonly string[];
    onProgress?: (p: ScanProgress) => void;
    checkpoints?: ClusterCheckpoints;
  },
): Promise<DecisionReplay> {
  const { eventTypes = CLUSTER_EVENT_TYPES, onProgress, checkpoints } = options;
  const basis = decisionBasis(events, selector);
  const limit = checkpointLimit(basis);
  const start = limit && checkpoints ? await checkpoints(limit) : undefined;
  const at = new SnapshotAtDecision(basis, start?.fold ?? options.fold ?? new ClusterFold());
  await scanLog(store, (e) => at.accept(e), {
    after: start?.position,
    until: basis.position, // the decision's own event: its view lies before it
    pageSize: EXPLAIN_PAGE_ROWS, // the scan stops at the decision's basis: a bulk page would read far past it
    filter: { kind: 'eventTypePrefix', prefixes: eventTypes },
    onProgress,
  });
  const replay = at.replay();
  return start ? { ...replay, checkpoint: formatPosition(start.position) } : replay;
}

async function streamOrNotFound(
  store: EventStore,
  streamId: string,
  code: string,
): Promise<RecordedHcnEvent[]> {
  const events = await store.readStream(streamId);
  if (events.length === 0) throw new AuditError(code, `${streamId} is not in the log`, { streamId });
  return events;
}

/** A node as of an instant (AUDIT.NODE_NOT_FOUND for a node the log never saw). */
export async function nodeAt(store: EventStore, nodeId: string, atMs: number): Promise<NodeAsOf> {
  return nodeAsOf(nodeId, await streamOrNotFound(store, nodeStream(nodeId), 'AUDIT.NODE_NOT_FOUND'), atMs);
}

/**
 * A domain as of an instant: its stream and every node stream replayed from the log (AUDIT.DOMAIN_NOT_FOUND for a
 * domain never defined that no node ever registered into).
 */
export async function domainAt(store: EventStore, domainId: string, atMs: number): Promise<DomainAsOf> {
  const nodes = new NodesAt(atMs);
  const [events] = await Promise.all([
    store.readStream(domainStream(domainId)),
    scanLog(store, (e) => nodes.accept(e), {
      filter: { kind: 'streamPrefix', prefixes: [NODE_STREAM_PREFIX] },
    }),
  ]);
  if (events.length === 0 && !nodes.everHad(domainId)) {
    throw new AuditError('AUDIT.DOMAIN_NOT_FOUND', `${domainStream(domainId)} is not in the log`, {
      domainId,
    });
  }
  return domainAsOf(domainId, events, nodes);
}

/** A namespace's quota as of an instant (AUDIT.QUOTA_NOT_FOUND when it never had a quota stream). */
export async function quotaAt(store: EventStore, namespace: string, atMs: number): Promise<QuotaAsOf> {
  const events = await streamOrNotFound(store, quotaStream(namespace), 'AUDIT.QUOTA_NOT_FOUND');
  return quotaAsOf(namespace, events, atMs);
}

/** A task queue as of an instant, with its history (AUDIT.TASKQUEUE_NOT_FOUND for a queue the log never saw). */
export async function taskQueueAt(store: EventStore, queueId: string, atMs: number): Promise<TaskQueueAsOf> {
  const events = await streamOrNotFound(store, taskQueueStream(queueId), 'AUDIT.TASKQUEUE_NOT_FOUND');
  return taskQueueAsOf(queueId, events, atMs);
}

/** The compliance report of a period, streamed from the whole log (one pass, filtered on the server). */
export async function readComplianceReport(
  store: EventStore,
  period: Period,
  visible: Visible,
  onProgress?: (p: ScanProgress) => void,
): Promise<ComplianceReport> {
  const acc = new ReportAccumulator(period);
  await scanLog(store, (e) => void acc.apply(e), {
    filter: { kind: 'eventTypePrefix', prefixes: REPORT_EVENT_TYPES },
    onProgress,
  });
  return buildReport(acc, visible);
}
