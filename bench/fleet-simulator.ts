import { AgentReport, RegisterNodeResponse } from '@hcn/contracts';
import { MessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { randomUUID } from 'node:crypto';

/** One simulated node. */
interface VirtualAgent {
  nodeId: string;
  credential: string;
  domainId: string;
  seq: number;
  silent: boolean;
}

/** Settings of a fleet. */
export interface FleetOptions {
  readonly hubUrl: string;
  readonly joinToken: string;
  readonly bus: MessageBus;
  /** Domains the nodes are spread over. */
  readonly domains: readonly string[];
}

/**
 * Many virtual agents in one process speaking the real protocol: each registers over HTTP with the join
 * token, then publishes signed heartbeat reports on `hcn.agent-reports` (key = node id), spread evenly over
 * each second, in batches.
 */
export class FleetSimulator {
  readonly agents: VirtualAgent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private cursor = 0;
  private publishing = false;
  published = 0;
  skippedTicks = 0;

  constructor(private readonly options: FleetOptions) {}

  /** Registers `count` more nodes, `concurrency` at a time; reports progress. */
  async grow(
    count: number,
    concurrency: number,
    onProgress: (done: number) => void = () => undefined,
  ): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        const domainId = this.options.domains[(this.agents.length + i) % this.options.domains.length];
        const body = {
          joinToken: this.options.joinToken,
          nodeId: randomUUID(),
          domainId,
          hostname: `sim-${this.agents.length + i}`,
          arch: 'x64',
          os: 'linux',
          cpuCores: 64,
          memoryBytes: 512 * 2 ** 30,
          diskBytes: 4 * 2 ** 40,
          labels: { sim: 'true' },
          agentVersion: 'fleet-sim',
        };
        const response = await fetch(`${this.options.hubUrl}/v1/agents/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!response.ok) throw new Error(`register failed: ${response.status} ${await response.text()}`);
        const session = (await response.json()) as RegisterNodeResponse;
        this.agents.push({
          nodeId: session.nodeId,
          credential: session.credential,
          domainId,
          seq: 0,
          silent: false,
        });
        onProgress(this.agents.length);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Starts heartbeats: every node once per `periodMs`, sent in `ticksPerPeriod` slices. */
  start(periodMs = 1000, ticksPerPeriod = 20): void {
    const tickMs = periodMs / ticksPerPeriod;
    this.timer = setInterval(() => void this.tick(ticksPerPeriod), tickMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Stops the heartbeats of `count` nodes (they stay registered); returns their ids and when they went quiet. */
  silence(count: number): { nodeIds: string[]; at: number } {
    const chosen = this.agents.filter((a) => !a.silent).slice(0, count);
    chosen.forEach((a) => (a.silent = true));
    return { nodeIds: chosen.map((a) => a.nodeId), at: Date.now() };
  }

  private async tick(ticksPerPeriod: number): Promise<void> {
    if (this.publishing) {
      this.skippedTicks++;
      return;
    }
    this.publishing = true;
    try {
      const count = this.agents.length;
      const slice = Math.ceil(count / ticksPerPeriod);
      const messages = [];
      for (let k = 0; k < slice && count > 0; k++) {
        const agent = this.agents[this.cursor++ % count];
        if (agent.silent) continue;
        const report: AgentReport = {
          kind: 'heartbeat',
          nodeId: agent.nodeId,
          domainId: agent.domainId,
          credential: agent.credential,
          seq: agent.seq++,
          sentAt: new Date().toISOString(),
          usage: { cpuUsage: 0.3, memoryUsedBytes: 100 * 2 ** 30, diskUsedBytes: 2 ** 40 },
        };
        messages.push({ key: agent.nodeId, value: JSON.stringify(report) });
      }
      if (messages.length > 0) await this.options.bus.publish(AGENT_REPORTS_TOPIC, messages);
      this.published += messages.length;
    } finally {
      this.publishing = false;
    }
  }
}
