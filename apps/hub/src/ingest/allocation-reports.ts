import { ParsedAgentReport, inParallel, workloadStream } from '@hcn/contracts';
import { DomainError, WorkloadCommand, workloadDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { handleOnCached } from '../common/aggregate';
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
  if (report.status === 'started')
    return { type: 'RecordStarted', allocationId, nodeId, pid: report.pid ?? 0, at: report.at };
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
  };
}

/** Turns allocation reports into workload events (in order per workload) and stores shipped logs. */
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
    const refused: RefusedReport[] = [];
    await inParallel([...byWorkload.values()], 8, async (items) => {
      for (const report of items) {
        const outcome = await this.apply(report);
        if (outcome) refused.push(outcome);
      }
    });
    return refused;
  }

  private async apply(report: AllocationReport): Promise<RefusedReport | undefined> {
    const context = {
      correlationId: report.workloadId,
      causationId: `report:${report.nodeId}:${report.seq}`,
      actor: { kind: 'agent' as const, id: report.nodeId },
      now: new Date(report.at),
    };
    const stream = workloadStream(report.workloadId);
    try {
      // The hub that placed the allocation usually still holds the workload's state: no read of the stream.
      const cached = this.hot.workloads.get(stream);
      const handled = await handleOnCached(
        this.store,
        workloadDecider,
        stream,
        cached,
        commandOf(report),
        context,
      );
      this.hot.workloads.set(stream, { state: handled.state, revision: handled.revision });
      return undefined;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { report, code: error.code, reason: error.message };
    }
  }
}
