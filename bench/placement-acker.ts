import { AgentReport, agentCommandSchema, withMac } from '@hcn/contracts';
import { Consumer, MessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import type { FleetSimulator } from './fleet-simulator';

/**
 * The placement side of the simulated fleet: consumes the domains' command topics, records when each `run`
 * command arrived (by workload id) and acknowledges it with a signed `started` report, as an agent would. Like an
 * agent, which hands its reports to an outbox that a sender drains, it does not hold up taking the next commands
 * while its reports are being published: they queue, and one sender publishes them in order.
 */
export class PlacementAcker {
  /** Arrival time (ms) of the first run command of each workload. */
  readonly received = new Map<string, number>();
  private consumer: Consumer | undefined;
  private readonly outbox: Array<{ key: string; value: string }> = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly fleet: FleetSimulator,
  ) {}

  async start(domains: readonly string[]): Promise<void> {
    const agents = new Map(this.fleet.agents.map((a) => [a.nodeId, a]));
    this.consumer = await this.bus.consume({
      groupId: 'bench-fleet-commands',
      topics: domains.map(commandTopicFor),
      fromBeginning: false,
      batchWindowMs: 5,
      // 1,000 agents take their commands side by side; one consumer handling the 80 partitions one after the
      // other (each batch awaiting its acks and its offset commit) would make later partitions wait on earlier
      // ones. Each node's commands stay in order: they share a partition (keyed by node id).
      concurrentPartitions: 16,
      handleBatch: async (messages) => {
        const now = Date.now();
        const acks: Array<{ key: string; value: string }> = [];
        for (const message of messages) {
          const command = agentCommandSchema.parse(JSON.parse(message.value.toString()));
          if (command.kind !== 'run') continue;
          const { workloadId, allocationId } = command.placement;
          if (!this.received.has(workloadId)) this.received.set(workloadId, now);
          const agent = agents.get(command.nodeId);
          if (!agent) continue;
          const report: AgentReport = withMac(agent.commandKey, {
            kind: 'allocation' as const,
            nodeId: agent.nodeId,
            domainId: agent.domainId,
            seq: agent.seq++,
            sentAt: new Date(now).toISOString(),
            workloadId,
            allocationId,
            status: 'started' as const,
            pid: 1,
            at: new Date(now).toISOString(),
          });
          acks.push({ key: agent.nodeId, value: JSON.stringify(report) });
        }
        this.outbox.push(...acks);
        this.sending ??= this.drain().finally(() => (this.sending = undefined));
      },
    });
  }

  /** Publishes the queued reports, in order, until none is left. */
  private async drain(): Promise<void> {
    while (this.outbox.length > 0) {
      const batch = this.outbox.splice(0, this.outbox.length);
      await this.bus
        .publish(AGENT_REPORTS_TOPIC, batch)
        .catch((error: Error) => console.error(`[bench] acks lost: ${error.message}`));
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    await this.sending;
  }
}
