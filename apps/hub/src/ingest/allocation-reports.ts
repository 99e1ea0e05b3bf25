import { ParsedAgentReport, workloadStream } from '@hcn/contracts';
import { DomainError, WorkloadCommand, WorkloadState } from '@hcn/domain';
import type { HotStreams } from '../common/hot-streams';
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
  if (report.status === 'ready' || report.status === 'not-ready')
    return {
      type: 'RecordReadiness',
      allocationId,
      nodeId,
      ready: report.status === 'ready',
      reason: report.reason,
      at: report.at,
    };
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
    const { accepted, foreign } = await this.ownLogs(logs);
    await this.logs.store(accepted);
    const groups = [...byWorkload.values()];
    const streams = groups.map((items) => {
      const streamId = workloadStream(items[0].workloadId);
      // The hub that placed the allocation usually still holds the workload's state: no read of the stream.
      const commands = items.map((report) => ({ command: commandOf(report), context: contextOf(report) }));
      return { streamId, commands };
    });
    const outcomes = await this.hot.workloads.handleMany(streams);
    const refused: RefusedReport[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      for (const { index, error } of outcome.refused) {
        if (!(error instanceof DomainError)) throw error;
        refused.push({ report: groups[i][index], code: error.code, reason: error.message });
      }
    }
    return [...foreign, ...refused];
  }

  /**
   * Logs of allocations placed on the reporting node only (the workload's state says where each allocation is; the
   * hub usually holds it, else the stream is read): an agent cannot write another node's output.
   */
  private async ownLogs(
    logs: readonly LogsReport[],
  ): Promise<{ accepted: LogsReport[]; foreign: RefusedReport[] }> {
    const states = new Map<string, WorkloadState>();
    for (const report of logs) {
      const streamId = workloadStream(report.workloadId);
      const cached = states.get(report.workloadId) ?? this.hot.workloads.cached(streamId)?.state;
      // a cached state may predate a placement another hub made: the stream decides before a refusal
      const state = cached?.allocations[report.allocationId]
        ? cached
        : (await this.hot.workloads.load(streamId)).state;
      states.set(report.workloadId, state);
    }
    const accepted: LogsReport[] = [];
    const foreign: RefusedReport[] = [];
    for (const report of logs) {
      const placedOn = states.get(report.workloadId)?.allocations[report.allocationId]?.nodeId;
      if (placedOn === report.nodeId) accepted.push(report);
      else
        foreign.push({
          report,
          code: 'LOGS.FOREIGN_ALLOCATION',
          reason: `allocation ${report.allocationId} of workload ${report.workloadId} is not placed on node ${report.nodeId}`,
        });
    }
    return { accepted, foreign };
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
