import { AgentReport, agentCommandSchema, withMac } from '@hcn/contracts';
import { Consumer, MessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import type { FleetSimulator } from './fleet-simulator';

/** An allocation report before it is signed. */
type AllocationReport = Omit<Extract<AgentReport, { kind: 'allocation' }>, 'mac'>;

/** What the fleet saw of one group of workloads (a task, by TASK_NAME, or a baseline, by BENCH_GROUP). */
export interface GroupTally {
  runs: number;
  firstRunMs: number;
  lastRunMs: number;
  stops: number;
  firstStopMs: number;
  lastStopMs: number;
}

const emptyTally = (): GroupTally => ({
  runs: 0,
  firstRunMs: NaN,
  lastRunMs: NaN,
  stops: 0,
  firstStopMs: NaN,
  lastStopMs: NaN,
});

/**
 * The agent side of the task fan-out bench's simulated fleet: takes the `run` and `stop-allocation` commands of the
 * sites' command topics and answers each as an agent whose process starts at once and ends at once on SIGTERM
 * (signed `started` and `stopped` reports), keeps what each node runs (listed in its heartbeats), and tallies the
 * commands by group: a task's TASK_NAME, or the BENCH_GROUP of a baseline workload.
 */
export class TaskFleetAgents {
  private readonly tallies = new Map<string, GroupTally>();
  private readonly groupOf = new Map<string, string>();
  private readonly running = new Map<string, Set<string>>();
  private consumer: Consumer | undefined;
  private readonly outbox: Array<{ key: string; value: string }> = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly fleet: FleetSimulator,
  ) {}

  /** The tally of a group (zeros before its first command). */
  tally(group: string): GroupTally {
    return this.tallies.get(group) ?? emptyTally();
  }

  /** The group a workload belongs to, once its run command arrived. */
  group(workloadId: string): string | undefined {
    return this.groupOf.get(workloadId);
  }

  /** The allocations a node runs now (its heartbeats list them). */
  runningOn(nodeId: string): string[] {
    return [...(this.running.get(nodeId) ?? [])];
  }

  async start(domains: readonly string[]): Promise<void> {
    const agents = new Map(this.fleet.agents.map((a) => [a.nodeId, a]));
    this.consumer = await this.bus.consume({
      groupId: 'bench-taskqueue-fleet',
      topics: domains.map(commandTopicFor),
      fromBeginning: false,
      batchWindowMs: 5,
      concurrentPartitions: 16,
      handleBatch: async (messages) => {
        const now = Date.now();
        const at = new Date(now).toISOString();
        for (const message of messages) {
          const command = agentCommandSchema.parse(JSON.parse(message.value.toString()));
          const agent = agents.get(command.nodeId);
          if (!agent || (command.kind !== 'run' && command.kind !== 'stop-allocation')) continue;
          const base = { kind: 'allocation' as const, nodeId: agent.nodeId, domainId: agent.domainId, at };
          const onNode = this.running.get(agent.nodeId) ?? new Set<string>();
          this.running.set(agent.nodeId, onNode);
          let report: AllocationReport;
          if (command.kind === 'run') {
            const { workloadId, allocationId, env } = command.placement;
            const group = env.TASK_NAME ?? env.BENCH_GROUP ?? 'other';
            this.groupOf.set(workloadId, group);
            this.count(group, 'run', now);
            onNode.add(allocationId);
            report = {
              ...base,
              seq: agent.seq++,
              sentAt: at,
              workloadId,
              allocationId,
              status: 'started',
              pid: 1,
            };
          } else {
            const { workloadId, allocationId } = command;
            this.count(this.groupOf.get(workloadId) ?? 'other', 'stop', now);
            onNode.delete(allocationId);
            report = {
              ...base,
              seq: agent.seq++,
              sentAt: at,
              workloadId,
              allocationId,
              status: 'stopped',
              endedBy: 'SIGTERM',
              signal: 'SIGTERM',
              reason: command.reason,
            };
          }
          const signed: AgentReport = withMac(agent.commandKey, report);
          this.outbox.push({ key: agent.nodeId, value: JSON.stringify(signed) });
        }
        this.sending ??= this.drain().finally(() => (this.sending = undefined));
      },
    });
  }

  private count(group: string, kind: 'run' | 'stop', now: number): void {
    const t = this.tallies.get(group) ?? emptyTally();
    this.tallies.set(group, t);
    if (kind === 'run') {
      t.runs++;
      if (Number.isNaN(t.firstRunMs)) t.firstRunMs = now;
      t.lastRunMs = now;
    } else {
      t.stops++;
      if (Number.isNaN(t.firstStopMs)) t.firstStopMs = now;
      t.lastStopMs = now;
    }
  }

  /** Publishes the queued reports, in order, until none is left (an agent's outbox and sender). */
  private async drain(): Promise<void> {
    while (this.outbox.length > 0) {
      const batch = this.outbox.splice(0, this.outbox.length);
      await this.bus
        .publish(AGENT_REPORTS_TOPIC, batch)
        .catch((error: Error) => console.error(`[bench] reports lost: ${error.message}`));
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    await this.sending;
  }
}
