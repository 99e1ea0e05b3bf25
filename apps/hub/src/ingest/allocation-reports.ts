import { ParsedAgentReport, workloadStream } from '@hcn/contracts';
import { DomainError, WorkloadCommand, workloadDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { handleManyOnCached } from '../common/aggregate';
import type { HotStreams } from '../common/cached-aggregate';
import type { LogStore } from '../logs/log-store';

type AllocationReport = Extract<ParsedAgentReport, { kind: 'allocation' }>;
type LogsReport = Extract<ParsedAgentReport, { kind: 'logs' }>;

/** A report refused with a code, to be dead-lettered. */
export interface RefusedReport {
  readonly report: ParsedAgentReport;
  readonly code: string;
  readonly reason: string;
}

function commandOf(report: AllocationReport): WorkloadCommand {
  const { allocationId, nodeId } = report;
  if (report.status === 'lost')
    return { type: 'MarkLost', allocationId, nodeId, reason: report.reason, at: report.at };
  if (report.status === 'started')
    return {
      type: 'RecordStarted',
      allocationId,
      nodeId,
      pid: report.pid ?? 0,
      at: report.at,
      ...(report.ports ? { ports: report.ports } : {}),
    };
  return {
    type: 'RecordEnded',
    allocationId,
    nodeId,
    outcome: report.status,
    exitCode: report.exitCode,
    signal: report.signal,
    reason: report.reason,
    endedBy: report.endedBy,
    at: report.at,
    ...(report.usage ? { usage: report.usage } : {}),
  };
}

/**
 * Turns allocation reports into workload events (in order per workload; the workloads whose state this hub holds in
 * one appendMany) and stores shipped logs.
 */
export class AllocationReports {
  constructor(
    private readonly store: EventStore,
    private readonly logs: LogStore,
    private readonly hot: HotStreams,
  ) {}

  /** Handles the non-heartbeat reports of one batch; returns those refused. */
  async handle(reports: readonly ParsedAgentReport[]): Promise<RefusedReport[]> {
    const byWorkload = new Map<string, AllocationReport[]>();
    const logs: LogsReport[] = [];
    for (const report of reports) {
      if (report.kind === 'logs') logs.push(report);
      else if (report.kind === 'allocation')
        byWorkload.set(report.workloadId, [...(byWorkload.get(report.workloadId) ?? []), report]);
    }
    await this.logs.store(logs);
    const groups = [...byWorkload.values()];
    const streams = groups.map((items) => {
      const streamId = workloadStream(items[0].workloadId);
      // The hub that placed the allocation usually still holds the workload's state: no read of the stream.
      const commands = items.map((report) => ({ command: commandOf(report), context: contextOf(report) }));
      return { streamId, cached: this.hot.workloads.get(streamId), commands };
    });
    const outcomes = await handleManyOnCached(this.store, workloadDecider, streams);
    const refused: RefusedReport[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.known) this.hot.workloads.set(streams[i].streamId, outcome.known);
      for (const { index, error } of outcome.refused) {
        if (!(error instanceof DomainError)) throw error;
        refused.push({ report: groups[i][index], code: error.code, reason: error.message });
      }
    }
    return refused;
  }
}

/** The event context of an agent's report: correlated to its workload, caused by the report. */
function contextOf(report: AllocationReport) {
  return {
    correlationId: report.workloadId,
    causationId: `report:${report.nodeId}:${report.seq}`,
    actor: { kind: 'agent' as const, id: report.nodeId },
    now: new Date(report.at),
  };
}
