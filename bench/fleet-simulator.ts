import { AcceleratorDevice, AgentReport, RegisterNodeResponse, withMac } from '@hcn/contracts';
import { mulberry32 } from '@hcn/scheduling';
import { simulatedDevices } from './heterogeneous-fleet';
import { MessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { randomUUID } from 'node:crypto';

/** One simulated node. */
interface VirtualAgent {
  nodeId: string;
  /** The node's key (registration answer): reports carry its MAC. */
  commandKey: string;
  domainId: string;
  seq: number;
  silent: boolean;
  devices: AcceleratorDevice[];
  /** Bearer credential (registration answer), for `GET /v1/agents/me`. */
  credential: string;
  /** Heartbeat interval the hub told this node (registration answer, then `GET /v1/agents/me`). */
  intervalMs: number;
  /** When its next heartbeat is due (`startAsTold`). */
  nextDueMs: number;
  /** Heartbeats sent since the last identity check. */
  sinceCheck: number;
}

/** Settings of a fleet. */
export interface FleetOptions {
  readonly hubUrl: string;
  readonly joinToken: string;
  readonly bus: MessageBus;
  /** Domains the nodes are spread over. */
  readonly domains: readonly string[];
  /** Give nodes accelerator devices of the heterogeneous fleet (mixed vendors, NVLink/HCCS islands). */
  readonly heterogeneous?: boolean;
  /** Cores each node registers with (default 64). */
  readonly cpuCores?: number;
  /** The allocations a node runs, listed in its heartbeats (default: none listed). */
  readonly runningOf?: (nodeId: string) => string[];
}

/**
 * Many virtual agents in one process speaking the real protocol: each registers over HTTP with the join
 * token, then publishes signed heartbeat reports on `hcn.agent-reports` (key = node id), spread evenly over
 * each second, in batches.
 */
export class FleetSimulator {
  readonly agents: VirtualAgent[] = [];
  /** Send times of recent reports per node (seq -> ms), for lag probes. */
  private readonly sent = new Map<string, Map<number, number>>();
  private timer: NodeJS.Timeout | undefined;
  private cursor = 0;
  private publishing = false;
  published = 0;
  /** The first `probed` agents have their send times remembered for lag probes. */
  probed = 200;
  private lastTick: number | undefined;
  private credit = 0;
  private periodMs = 1000;
  skippedTicks = 0;

  /** Seeded source of the simulated devices (the same fleet every run). */
  private readonly random = mulberry32(0x5eed);

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
        const devices = this.options.heterogeneous ? simulatedDevices(this.random) : [];
        const body = {
          joinToken: this.options.joinToken,
          nodeId: randomUUID(),
          domainId,
          hostname: `sim-${this.agents.length + i}`,
          arch: 'x64',
          os: 'linux',
          cpuCores: this.options.cpuCores ?? 64,
          memoryBytes: 512 * 2 ** 30,
          diskBytes: 4 * 2 ** 40,
          labels: { sim: 'true' },
          agentVersion: 'fleet-sim',
          accelerators: devices.length,
          devices,
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
          commandKey: session.commandKey,
          domainId,
          seq: 0,
          silent: false,
          devices,
          credential: session.credential,
          intervalMs: session.heartbeatIntervalSeconds * 1000,
          nextDueMs: 0,
          sinceCheck: 0,
        });
        onProgress(this.agents.length);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Starts heartbeats: every node once per `periodMs`, sent in `ticksPerPeriod` slices. */
  start(periodMs = 1000, ticksPerPeriod = 20): void {
    this.periodMs = periodMs;
    this.lastTick = undefined;
    this.credit = 0;
    const tickMs = periodMs / ticksPerPeriod;
    this.timer = setInterval(() => void this.tick(ticksPerPeriod), tickMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * Starts heartbeats as real agents send them: each node at the interval the hub told it, one publish request per
   * heartbeat, first beats spread over each node's interval; every `identityCheckEvery` heartbeats a node asks
   * `GET /v1/agents/me` (as the agent does) and adopts the interval in the answer, if any.
   */
  startAsTold(identityCheckEvery = 3, tickMs = 50): void {
    const now = Date.now();
    for (const agent of this.agents) agent.nextDueMs = now + this.random() * agent.intervalMs;
    this.timer = setInterval(() => void this.tickAsTold(identityCheckEvery), tickMs);
  }

  /** Heartbeats per second the fleet sends now (from each node's interval). */
  ratePerSecond(): number {
    return this.agents.reduce((sum, a) => sum + (a.silent ? 0 : 1000 / a.intervalMs), 0);
  }

  private async tickAsTold(identityCheckEvery: number): Promise<void> {
    const now = Date.now();
    const sends: Array<Promise<void>> = [];
    for (const agent of this.agents) {
      if (agent.silent || agent.nextDueMs > now) continue;
      agent.nextDueMs += agent.intervalMs;
      const report = withMac(agent.commandKey, this.heartbeat(agent, now));
      sends.push(
        this.options.bus.publish(AGENT_REPORTS_TOPIC, [{ key: agent.nodeId, value: JSON.stringify(report) }]),
      );
      this.published++;
      if (++agent.sinceCheck >= identityCheckEvery) {
        agent.sinceCheck = 0;
        sends.push(this.checkIdentity(agent));
      }
    }
    await Promise.all(sends).catch((error: Error) => console.error(`[bench] heartbeat: ${error.message}`));
  }

  /** `GET /v1/agents/me` as the agent's identity check; adopts a heartbeat interval the answer carries. */
  private async checkIdentity(agent: VirtualAgent): Promise<void> {
    const response = await fetch(`${this.options.hubUrl}/v1/agents/me`, {
      headers: { authorization: `Bearer ${agent.credential}` },
    });
    const body = (await response.json()) as { heartbeatIntervalSeconds?: number };
    if (response.ok && body.heartbeatIntervalSeconds) agent.intervalMs = body.heartbeatIntervalSeconds * 1000;
  }

  private heartbeat(agent: VirtualAgent, now: number) {
    return {
      kind: 'heartbeat' as const,
      nodeId: agent.nodeId,
      domainId: agent.domainId,
      seq: agent.seq++,
      sentAt: new Date(now).toISOString(),
      usage: { cpuUsage: 0.3, memoryUsedBytes: 100 * 2 ** 30, diskUsedBytes: 2 ** 40 },
      ...(this.options.runningOf ? { runningAllocations: this.options.runningOf(agent.nodeId) } : {}),
      ...(agent.devices.length > 0 ? { devices: deviceUsage(agent.devices) } : {}),
    };
  }

  /** Stops the heartbeats of `count` nodes (they stay registered); returns their ids and when they went quiet. */
  silence(count: number): { nodeIds: string[]; at: number } {
    const chosen = this.agents.filter((a) => !a.silent).slice(0, count);
    chosen.forEach((a) => (a.silent = true));
    return { nodeIds: chosen.map((a) => a.nodeId), at: Date.now() };
  }

  /** Forgets remembered send times (start of a measurement window). */
  resetSent(): void {
    this.sent.clear();
  }

  /** Send times of the reports of `nodeId` up to `seq` not taken before (each is returned once). */
  takeSentUpTo(nodeId: string, seq: number): number[] {
    const bySeq = this.sent.get(nodeId);
    if (!bySeq) return [];
    const taken: number[] = [];
    for (const [s, at] of bySeq) {
      if (s > seq) continue;
      taken.push(at);
      bySeq.delete(s);
    }
    return taken;
  }

  private remember(nodeId: string, seq: number, at: number): void {
    const bySeq = this.sent.get(nodeId) ?? new Map<number, number>();
    bySeq.set(seq, at);
    if (bySeq.size > 120) bySeq.delete(bySeq.keys().next().value as number);
    this.sent.set(nodeId, bySeq);
  }

  private async tick(_ticksPerPeriod: number): Promise<void> {
    if (this.publishing) {
      this.skippedTicks++;
      return;
    }
    this.publishing = true;
    try {
      const count = this.agents.length;
      const now = Date.now();
      // Each agent is due once per period: credit accrues with time (a late tick sends what came due meanwhile).
      this.credit = Math.min(count, this.credit + ((now - (this.lastTick ?? now)) / this.periodMs) * count);
      this.lastTick = now;
      const messages = [];
      // The cursor stays an index into the agents: nodes that join are appended, so the rotation reaches them
      // without moving. (`cursor % count` on an ever-growing cursor jumped whenever the fleet grew, leaving some
      // nodes silent for longer than the TTL: false offline events in every growth step.)
      for (; this.credit >= 1 && count > 0; this.credit--, this.cursor = (this.cursor + 1) % count) {
        const index = this.cursor % count;
        const agent = this.agents[index];
        if (agent.silent) continue;
        const report: AgentReport = withMac(agent.commandKey, this.heartbeat(agent, now));
        messages.push({ key: agent.nodeId, value: JSON.stringify(report) });
        if (index < this.probed) this.remember(agent.nodeId, report.seq, now);
      }
      if (messages.length > 0) await this.options.bus.publish(AGENT_REPORTS_TOPIC, messages);
      this.published += messages.length;
    } finally {
      this.publishing = false;
    }
  }
}

/** Idle usage of a node's devices, with their registered health. */
function deviceUsage(devices: readonly AcceleratorDevice[]) {
  return devices.map((d) => ({
    index: d.index,
    vendor: d.vendor,
    utilization: 0,
    memoryUsedBytes: 0,
    health: d.health,
  }));
}
