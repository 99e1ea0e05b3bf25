import {
  HcnError,
  ParsedAgentReport,
  agentReportSchema,
  commandMacMatches,
  deterministicUuid,
  heartbeatStream,
  inParallel,
  NewEvent,
} from '@hcn/contracts';
import { DuplicateEventIdError, EventStore } from '@hcn/eventstore';
import {
  Consumer,
  IncomingMessage,
  MessageBus,
  deadLetterMessage,
  defaultDeadLetterTopic,
} from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import type { AgentCredentials } from '../auth/agent-credentials';
import type { HubMetrics } from '../common/metrics';
import type { LivenessService } from '../sagas/liveness.service';
import type { AllocationReports } from './allocation-reports';
import type { DeviceHealthWatch } from './device-health';
import type { HeartbeatReconciler } from './heartbeat-reconciler';
import type { IngestStalls } from './ingest-stalls';
import { Logger } from '@nestjs/common';

const logger = new Logger('reconcile');

type Report = Extract<ParsedAgentReport, { kind: 'heartbeat' }>;
type Rejected = { message: IncomingMessage; code: string; reason: string };

/** Consumer group of the hubs reading agent reports. */
export const REPORTS_GROUP = 'hcn-hub-reports';

/** Longest pause between two attempts at a batch the store or the bus keeps failing. */
export const REPORTS_RETRY_BACKOFF_CAP_MS = 5000;

/** The heartbeat event of a report; its id derives from (node, seq) so a replayed report is stored once. */
export function heartbeatEvent(report: Report): NewEvent {
  return {
    eventId: deterministicUuid(`heartbeat:${report.nodeId}:${report.seq}`),
    type: 'NodeHeartbeatRecorded',
    data: {
      nodeId: report.nodeId,
      seq: report.seq,
      sentAt: report.sentAt,
      usage: report.usage,
      runningAllocations: report.runningAllocations,
      ...(report.devices?.length ? { devices: report.devices } : {}),
      ...(report.allocationUsage?.length ? { allocationUsage: report.allocationUsage } : {}),
    },
    metadata: {
      correlationId: report.nodeId,
      causationId: `report:${report.seq}`,
      actor: { kind: 'agent', id: report.nodeId },
      occurredAt: report.sentAt,
    },
  };
}

/**
 * Consumes `hcn.agent-reports` in batches: validates and authenticates each report, dead-letters the bad ones
 * (with the reason, counted), appends heartbeats per node, and brings offline nodes back online.
 */
export class AgentReportsConsumer {
  private consumer: Consumer | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly store: EventStore,
    private readonly credentials: AgentCredentials,
    private readonly liveness: LivenessService,
    private readonly metrics: HubMetrics,
    private readonly allocationReports: AllocationReports,
    private readonly deviceHealth?: DeviceHealthWatch,
    private readonly reconciler?: HeartbeatReconciler,
    private readonly stalls?: IngestStalls,
    /** How long the broker may gather reports for one fetch (less when 256 KiB are waiting). */
    private readonly batchWindowMs = 200,
  ) {}

  async start(): Promise<void> {
    await this.bus.createTopics([
      { name: AGENT_REPORTS_TOPIC, partitions: 8, brokerTimestamps: true }, // lag by the broker's clock
      { name: defaultDeadLetterTopic(AGENT_REPORTS_TOPIC) },
    ]);
    this.consumer = await this.bus.consume({
      groupId: REPORTS_GROUP,
      topics: [AGENT_REPORTS_TOPIC],
      fromBeginning: true,
      batchWindowMs: this.batchWindowMs,
      // reports are keyed by node: partitions in parallel keep each node's reports in order
      concurrentPartitions: 4,
      handleBatch: (messages) => this.handle(messages).catch((error: unknown) => this.failed(error)),
      // bad reports are dead-lettered by handle() itself; when the store or the bus fails, dead-lettering valid
      // reports would lose them, so those batches are retried until the infrastructure is back
      isTransient: isInfrastructureFailure,
      maxRetryBackoffMs: REPORTS_RETRY_BACKOFF_CAP_MS,
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  /** A failed batch: a failure of the infrastructure holds off judging reports missing (IngestStalls). */
  private failed(error: unknown): never {
    if (isInfrastructureFailure(error)) this.stalls?.failed();
    throw error;
  }

  /** Handles one batch of one partition: valid reports are appended per node, the others dead-lettered. */
  async handle(messages: IncomingMessage[]): Promise<void> {
    const stop = this.metrics.ingestBatchSeconds.startTimer();
    this.metrics.reportsReceived.inc(messages.length);
    const byNode = new Map<string, Array<{ message: IncomingMessage; report: ParsedAgentReport }>>();
    const rejected: Rejected[] = [];
    for (const message of messages) {
      const verdict = this.check(message);
      if ('report' in verdict) {
        const nodeId = verdict.report.nodeId;
        byNode.set(nodeId, [...(byNode.get(nodeId) ?? []), { message, report: verdict.report }]);
      } else rejected.push({ message, ...verdict });
    }
    const work: Array<{ message: IncomingMessage; report: ParsedAgentReport }> = [];
    const known = new Map<string, Report[]>();
    for (const [nodeId, items] of byNode) {
      if (await this.liveness.lookup(nodeId)) {
        const heartbeats = uniqueBySeq(
          items.flatMap((i) => (i.report.kind === 'heartbeat' ? [i.report] : [])),
        );
        if (heartbeats.length > 0) known.set(nodeId, heartbeats);
        work.push(...items.filter((i) => i.report.kind !== 'heartbeat'));
      } else
        for (const { message } of items)
          rejected.push({ message, ...this.reject('NODE.NOT_FOUND', `node ${nodeId} is not registered`) });
    }
    const fresh = await this.appendHeartbeats(known);
    for (const refused of await this.allocationReports.handle(work.map((w) => w.report))) {
      const message = work.find((w) => w.report === refused.report)?.message;
      if (message) rejected.push({ message, ...this.reject(refused.code, refused.reason) });
    }
    await this.reconcile(fresh);
    this.liveness.noteIngestLag(ingestLagMs(messages, [...known.values()].flat()));
    if (rejected.length > 0) {
      await this.bus.publishAll(
        rejected.map((r) => ({
          topic: defaultDeadLetterTopic(r.message.topic),
          messages: [deadLetterMessage(r.message, r.code, r.reason)],
        })),
      );
    }
    stop();
  }

  /** Each node's newest heartbeat against what the hub holds for it (a final one: the agent stopped everything). */
  private async reconcile(known: Map<string, Report[]>): Promise<void> {
    const reconciler = this.reconciler;
    if (!reconciler) return;
    await inParallel([...known.values()], 8, async (reports) => {
      const newest = reports.reduce((a, b) => (b.seq > a.seq ? b : a));
      if (newest.final) return;
      await reconciler.observe(newest, newest.domainId).catch((error: Error) => {
        logger.error(`node ${newest.nodeId}: ${error.message}`);
      });
    });
  }

  private check(message: IncomingMessage): { report: ParsedAgentReport } | { code: string; reason: string } {
    let json: unknown;
    try {
      json = JSON.parse(message.value.toString('utf8'));
    } catch {
      return this.reject('REPORT.MALFORMED_JSON', 'report is not valid JSON');
    }
    const parsed = agentReportSchema.safeParse(json);
    if (!parsed.success) {
      const reason = parsed.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      return this.reject('REPORT.SCHEMA_INVALID', reason);
    }
    const report = parsed.data;
    // over the fields as sent (the parsed report has defaults filled in)
    if (!commandMacMatches(this.credentials.commandKey(report.nodeId), json as { mac?: string })) {
      return this.reject(
        'AUTH.INVALID_REPORT_MAC',
        `the report is not signed with node ${report.nodeId}'s key`,
      );
    }
    if (message.key !== null && message.key !== report.nodeId) {
      return this.reject(
        'REPORT.KEY_MISMATCH',
        `message key ${message.key} is not the report's node ${report.nodeId}`,
      );
    }
    return { report };
  }

  private reject(code: string, reason: string): { code: string; reason: string } {
    this.metrics.reportsRejected.inc({ reason: code });
    return { code, reason };
  }

  /**
   * Appends every node's heartbeats, then updates liveness from the fresh ones (returned): one appendMany per
   * round, the k-th heartbeat of each node in round k (in order), so each request holds one event per stream and
   * the store takes its set-based path also when a batch that runs behind holds several heartbeats of a node.
   */
  private async appendHeartbeats(byNode: Map<string, Report[]>): Promise<Map<string, Report[]>> {
    const rounds = Math.max(0, ...[...byNode.values()].map((reports) => reports.length));
    // only a heartbeat stored now, above every sequence seen from its node, says the node is alive: a replay
    // (stored before, or older than the newest) never keeps a node online or brings it back
    const fresh = new Map<string, Report[]>();
    for (let k = 0; k < rounds; k++) {
      const round = [...byNode].flatMap(([nodeId, reports]) =>
        k < reports.length ? [{ nodeId, report: reports[k] }] : [],
      );
      const stored = await this.appendRound(round);
      round.forEach(({ nodeId, report }, i) => {
        if (stored[i] && report.seq > (this.liveness.get(nodeId)?.lastSeq ?? -1))
          fresh.set(nodeId, [...(fresh.get(nodeId) ?? []), report]);
      });
    }
    const comingBack: Array<[string, Report[]]> = [];
    for (const [nodeId, reports] of fresh) {
      this.metrics.heartbeatsAppended.inc(reports.length);
      this.liveness.heard(nodeId, Date.now(), Math.max(...reports.map((r) => r.seq)));
      if (this.liveness.get(nodeId)?.status === 'offline') comingBack.push([nodeId, reports]);
    }
    await inParallel(comingBack, 8, ([nodeId, reports]) => this.bringOnline(nodeId, reports));
    await this.deviceHealth?.observe(byNode);
    return fresh;
  }

  /**
   * One heartbeat of each of some nodes in one appendMany; a replay of a stored one is stored once. Says, per
   * heartbeat, whether it was stored now (false: it was already).
   */
  private async appendRound(round: Array<{ nodeId: string; report: Report }>): Promise<boolean[]> {
    const outcomes = await this.store.appendMany(
      round.map(({ nodeId, report }) => ({
        streamId: heartbeatStream(nodeId),
        events: [heartbeatEvent(report)],
        expectedRevision: 'any' as const,
      })),
    );
    for (const outcome of outcomes) {
      if (!outcome.ok && !(outcome.error instanceof DuplicateEventIdError)) throw outcome.error;
    }
    return outcomes.map((outcome) => outcome.ok);
  }

  private async bringOnline(nodeId: string, reports: Report[]): Promise<void> {
    const newest = reports.reduce((a, b) => (b.seq > a.seq ? b : a));
    if (newest.final) return;
    const seenAt = new Date(Math.min(Date.now(), Date.parse(newest.sentAt)));
    await this.liveness.markOnline(nodeId, seenAt);
  }
}

/** Store or bus failures that pass (unavailable, a concurrent writer), as opposed to a request the store refuses. */
const TRANSIENT_CODES = new Set([
  'EVENTSTORE.UNAVAILABLE',
  'EVENTSTORE.WRONG_EXPECTED_REVISION',
  'BUS.UNAVAILABLE',
]);

/** True for an error the next attempt may not meet: an infrastructure failure, not a refused request. */
export function isInfrastructureFailure(error: unknown): boolean {
  return !(error instanceof HcnError) || TRANSIENT_CODES.has(error.code);
}

/** How far behind the broker's appends this hub reads reports: the median over a batch. */
function ingestLagMs(messages: readonly IncomingMessage[], reports: Report[]): number {
  // the broker's append times (an agent's clock, or a forged sentAt, cannot stretch it); reports' send times
  // only where the adapter gives none
  const appended = messages.map((m) => m.timestamp).filter((t): t is number => Number.isFinite(t));
  const times = appended.length > 0 ? appended : reports.map((r) => Date.parse(r.sentAt));
  if (times.length === 0) return 0;
  const lags = times.map((t) => Date.now() - t).sort((a, b) => a - b);
  return Math.max(0, lags[Math.floor(lags.length / 2)]);
}

/** One report per sequence number (a replay can repeat one within a batch; its event id is the same). */
function uniqueBySeq(reports: Report[]): Report[] {
  const seen = new Set<number>();
  return reports.filter((r) => !seen.has(r.seq) && seen.add(r.seq));
}
