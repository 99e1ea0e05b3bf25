import { nodeStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { KafkaMessageBus } from '@hcn/messaging';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { startKafkaForTests } from '../test/services/kafka';
import { freePort } from '../test/services/ports';
import { AppProcess } from '../test/support/processes';
import { cpuByGroup, cpuPerUnit } from './cpu-breakdown';
import { FleetSimulator } from './fleet-simulator';
import { benchDatabase, percentile, progress, report, hubNodeArgs } from './support';

const FLEETS = (process.env.BENCH_FLEETS ?? '2000,4000,6000,8000,10000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const TTL_S = 5;
const INTERVAL_S = 1;
const JOIN_TOKEN = 'bench-join-token-0123456789';
const SAMPLE_NODES = 200;
/** Heap settings for the agent in production images (docker-compose sets the same NODE_OPTIONS). */
const AGENT_NODE_OPTIONS =
  process.env.BENCH_AGENT_NODE_OPTIONS ?? '--max-semi-space-size=1 --max-old-space-size=64';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Scrapes one counter from the hub's /metrics. */
export async function counter(hubUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${hubUrl}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * Heartbeat → node_state lag, measured from outside: the simulator remembers when it sent each seq; a poller
 * reads `last_heartbeat_seq` of sampled nodes from the read model every 100 ms and records when each sent seq
 * first became visible.
 */
export class LagProbe {
  readonly samples: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly pool: Pool,
    private readonly fleet: FleetSimulator,
  ) {}

  start(): void {
    this.samples.length = 0;
    this.fleet.resetSent();
    this.timer = setInterval(() => void this.poll(), 100);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const agents = this.fleet.agents.slice(0, SAMPLE_NODES);
      const rows: Array<{ node_id: string; seq: number }> = await this.pool
        .query('SELECT node_id, last_heartbeat_seq AS seq FROM node_state WHERE node_id = ANY($1)', [
          agents.map((a) => a.nodeId),
        ])
        .then((r) => r.rows);
      const now = Date.now();
      for (const row of rows) {
        const sentAt = this.fleet.takeSentUpTo(row.node_id, row.seq);
        for (const at of sentAt) this.samples.push(now - at);
      }
    } finally {
      this.busy = false;
    }
  }
}

/** What one measured window of heartbeat ingestion gave. */
export interface HeartbeatWindow {
  readonly offeredPerSec: number;
  readonly appendedPerSec: number;
  readonly appendedToOffered: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagSamples: number;
  /** CPU milliseconds per appended heartbeat, by process group. */
  readonly cpuMsPerHeartbeat: Record<string, number>;
}

/** Measures `windowS` seconds of ingestion: offered and appended rates, the probe's lag, CPU per heartbeat. */
export async function measureHeartbeatWindow(
  hubUrl: string,
  fleet: FleetSimulator,
  probe: LagProbe,
  pids: { hub?: number; projector?: number },
  windowS: number,
): Promise<HeartbeatWindow> {
  probe.start();
  const cpu0 = cpuByGroup(pids);
  const [a0, p0, t0] = [await counter(hubUrl, 'hcn_heartbeats_appended_total'), fleet.published, Date.now()];
  await sleep(windowS * 1000);
  const [a1, p1, t1] = [await counter(hubUrl, 'hcn_heartbeats_appended_total'), fleet.published, Date.now()];
  const cpuMsPerHeartbeat = cpuPerUnit(cpu0, cpuByGroup(pids), a1 - a0);
  probe.stop();
  const seconds = (t1 - t0) / 1000;
  const sorted = [...probe.samples].sort((x, y) => x - y);
  return {
    offeredPerSec: Math.round((p1 - p0) / seconds),
    appendedPerSec: Math.round((a1 - a0) / seconds),
    appendedToOffered: +((a1 - a0) / Math.max(1, p1 - p0)).toFixed(3),
    lagP50Ms: percentile(sorted, 50),
    lagP99Ms: percentile(sorted, 99),
    lagSamples: sorted.length,
    cpuMsPerHeartbeat,
  };
}

/**
 * Heartbeat ingestion in distributed mode: hub and projector as their own processes over real Kafka and the
 * PostgreSQL store; a fleet of virtual agents (this process) at 1 Hz each.
 */
export async function run(): Promise<void> {
  // BENCH_KAFKA_CLIENTS=kafkajs,platformatic: the same ingestion on each Kafka client, interleaved (kafka-clients.ts)
  if (process.env.BENCH_KAFKA_CLIENTS) return (await import('./kafka-clients')).runKafkaClients();
  console.log('[bench] building (npm run build) so the apps run compiled, as in production');
  const build = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const db = await benchDatabase('heartbeats');
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`));
  const port = await freePort();
  const hubUrl = `http://127.0.0.1:${port}`;
  const common = { DATABASE_URL: db.url, KAFKA_BROKERS: kafka.brokers.join(',') };
  const hub = new AppProcess(
    'hub',
    'apps/hub/src/main.ts',
    {
      ...common,
      HCN_HTTP_PORT: String(port),
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
      HCN_ADMIN_TOKEN: 'bench-admin-token-0123456789',
      HCN_NODE_TTL_SECONDS: String(TTL_S),
      HCN_HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S),
      // the simulated fleet sends at a fixed rate: the hub keeps the interval and TTL as configured
      HCN_HEARTBEATS_MAX_PER_SECOND: '0',
      HCN_LIVENESS_SWEEP_MS: '250',
    },
    true,
    hubNodeArgs(),
  ).start();
  const projector = new AppProcess('projector', 'apps/projector/src/main.ts', common, true).start();
  const pool = new Pool({ connectionString: db.url, max: 2 });
  const simBus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-fleet' });
  const fleet = new FleetSimulator({
    hubUrl,
    joinToken: JOIN_TOKEN,
    bus: simBus,
    domains: ['east', 'west', 'north', 'south'],
    // BENCH_FLEET_DEVICES=1: nodes register accelerators of the heterogeneous fleet and report their usage
    heterogeneous: process.env.BENCH_FLEET_DEVICES === '1',
  });
  const probe = new LagProbe(pool, fleet);
  const results = [];
  try {
    for (let i = 0; i < 240 && (await fetch(`${hubUrl}/readyz`).catch(() => undefined))?.status !== 200; i++)
      await sleep(250);
    fleet.start(1000, 20);
    for (const size of FLEETS) {
      console.log(
        `[bench] fleet of ${size}: registering ${size - fleet.agents.length} more nodes while the others heartbeat`,
      );
      await fleet.grow(size - fleet.agents.length, 16, (done) => progress('registering', done, size));
      console.log(`[bench] ${size} nodes at 1 Hz: warm-up ${WARMUP_S + 5}s, then a ${WINDOW_S}s window`);
      await sleep((WARMUP_S + 5) * 1000);
      const pids = { hub: hub.pid, projector: projector.pid };
      const measured = await measureHeartbeatWindow(hubUrl, fleet, probe, pids, WINDOW_S);
      const row = {
        nodes: size,
        ...measured,
        offlineFlaps: await counter(hubUrl, 'hcn_nodes_went_offline_total'),
      };
      const detection = await measureOfflineDetection(fleet, db.url);
      results.push({ ...row, detection });
      console.log(`[bench]   ${JSON.stringify({ ...row, detection })}`);
    }
    const holding = results.filter((r) => r.lagP99Ms <= 1000 && r.appendedToOffered >= 0.95);
    const largest = holding[holding.length - 1] ?? results[0];
    fleet.stop();
    const agentRss = await measureAgentRss(hubUrl, kafka.brokers);
    const processes = { hubRssMiB: rssMiB(hub.pid), projectorRssMiB: rssMiB(projector.pid) };
    report('heartbeats', {
      ttlSeconds: TTL_S,
      intervalSeconds: INTERVAL_S,
      windowSeconds: WINDOW_S,
      fleets: results,
      largestHolding: largest.nodes,
      agentRss,
      processes,
    });
  } finally {
    fleet.stop();
    probe.stop();
    await simBus.close();
    await pool.end();
    await hub.kill('SIGTERM');
    await projector.kill('SIGTERM');
    await kafka.stop();
    await db.stop();
  }
}

/** Resident memory of a process in MiB (NaN once it is gone). */
export function rssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  return +(
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
  ).toFixed(1);
}

/** Silences 20 nodes and reads, from the log, when NodeWentOffline was recorded for each. */
async function measureOfflineDetection(fleet: FleetSimulator, url: string): Promise<Record<string, number>> {
  const { nodeIds, at } = fleet.silence(20);
  await sleep((TTL_S + INTERVAL_S) * 1000 + 10000);
  const store = await PostgresEventStore.connect({ connectionString: url });
  const detectedAfter: number[] = [];
  try {
    for (const id of nodeIds) {
      const offline = (await store.readStream(nodeStream(id))).find(
        (e) => e.type === 'NodeWentOffline' && Date.parse(e.recordedAt) >= at,
      );
      if (offline) detectedAfter.push(Date.parse(offline.recordedAt) - at);
    }
  } finally {
    await store.close();
  }
  const sorted = detectedAfter.sort((x, y) => x - y);
  return {
    silenced: nodeIds.length,
    detected: sorted.length,
    p50Ms: percentile(sorted, 50),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    boundMs: (TTL_S + INTERVAL_S) * 1000,
  };
}

/** RSS of a real agent process idling against the hub, and of an idle Node process started the same way. */
async function measureAgentRss(hubUrl: string, brokers: string[]): Promise<Record<string, number>> {
  console.log('[bench] agent RSS: one real agent process idling 20 s');
  const dir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-'));
  const agent = new AppProcess(
    'agent',
    'apps/agent/src/main.ts',
    {
      HCN_HUB_URL: hubUrl,
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_DOMAIN: 'east',
      HCN_DATA_DIR: dir,
      KAFKA_BROKERS: brokers.join(','),
    },
    true,
  ).start();
  const tuned = new AppProcess(
    'agent-small-heap',
    'apps/agent/src/main.ts',
    {
      HCN_HUB_URL: hubUrl,
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_DOMAIN: 'east',
      HCN_DATA_DIR: `${dir}-tuned`,
      KAFKA_BROKERS: brokers.join(','),
      NODE_OPTIONS: AGENT_NODE_OPTIONS,
    },
    true,
  ).start();
  const baseline = new AppProcess('baseline', 'bench/idle-baseline.ts', {}).start();
  const sourceAgent = new AppProcess('agent-from-sources', 'apps/agent/src/main.ts', {
    HCN_HUB_URL: hubUrl,
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_DOMAIN: 'east',
    HCN_DATA_DIR: `${dir}-src`,
    KAFKA_BROKERS: brokers.join(','),
  }).start();
  try {
    await sleep(20000);
    return {
      agentCompiledRssMiB: rssMiB(agent.pid),
      agentCompiledSmallHeapRssMiB: rssMiB(tuned.pid),
      agentFromSourcesRssMiB: rssMiB(sourceAgent.pid),
      idleNodeWithSwcRegisterRssMiB: rssMiB(baseline.pid),
    };
  } finally {
    await agent.kill('SIGTERM');
    await sourceAgent.kill('SIGTERM');
    await tuned.kill('SIGTERM');
    rmSync(`${dir}-tuned`, { recursive: true, force: true });
    await baseline.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-src`, { recursive: true, force: true });
  }
}
