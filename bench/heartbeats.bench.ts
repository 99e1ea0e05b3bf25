import { RecordedEvent } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { KafkaMessageBus } from '@hcn/messaging';
import { openReadModels } from '@hcn/read-models';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProjector } from '../apps/projector/src/projector';
import { loadHubConfig } from '../apps/hub/src/config';
import { startHub } from '../apps/hub/src/hub';
import { startKafkaForTests } from '../test/services/kafka';
import { AppProcess } from '../test/support/processes';
import { FleetSimulator } from './fleet-simulator';
import { benchDatabase, percentile, progress, report } from './support';

const FLEETS = (process.env.BENCH_FLEETS ?? '1000,2500,5000,10000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
let measuringForSettle = false;
const TTL_S = 5;
const INTERVAL_S = 1;
const JOIN_TOKEN = 'bench-join-token-0123456789';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Heartbeat ingestion: a fleet of virtual agents over real Kafka into the PostgreSQL store and read models. */
export async function run(): Promise<void> {
  const db = await benchDatabase('heartbeats');
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`));
  const store = await PostgresEventStore.connect({
    connectionString: db.url,
    poolSize: 12,
    polling: { pollIntervalMs: 100 },
  });
  const readModels = await openReadModels(db.url, 6);
  const lags: number[] = [];
  let measuring = false;
  const projector = await startProjector(store, readModels, {
    onBatch: ({ events }) => {
      if (!measuring && !measuringForSettle) return;
      const now = Date.now();
      for (const e of events as RecordedEvent[]) {
        if (e.type === 'NodeHeartbeatRecorded')
          lags.push(now - Date.parse((e.data as { sentAt: string }).sentAt));
      }
    },
  });
  const hubBus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-hub' });
  const config = loadHubConfig({
    DATABASE_URL: db.url,
    KAFKA_BROKERS: kafka.brokers.join(','),
    HCN_HTTP_PORT: '0',
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_NODE_TTL_SECONDS: String(TTL_S),
    HCN_HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S),
    HCN_LIVENESS_SWEEP_MS: '250',
  });
  const hub = await startHub(config, { store, bus: hubBus, readModels });
  const simBus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-fleet' });
  const fleet = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: JOIN_TOKEN,
    bus: simBus,
    domains: ['east', 'west', 'north', 'south'],
  });
  const appended = async (): Promise<number> =>
    (await hub.metrics.heartbeatsAppended.get()).values[0]?.value ?? 0;
  const results = [];
  try {
    fleet.start(1000, 20);
    for (const size of FLEETS) {
      console.log(
        `[bench] fleet of ${size}: registering ${size - fleet.agents.length} more nodes while the others heartbeat`,
      );
      await fleet.grow(size - fleet.agents.length, 16, (done) => progress('registering', done, size));
      console.log(
        `[bench] ${size} nodes at 1 Hz: settling, then warm-up ${WARMUP_S}s and a ${WINDOW_S}s window`,
      );
      await settle(() => lags, 30000);
      await sleep(WARMUP_S * 1000);
      lags.length = 0;
      measuring = true;
      const [a0, p0, t0] = [await appended(), fleet.published, Date.now()];
      await sleep(WINDOW_S * 1000);
      const [a1, p1, t1] = [await appended(), fleet.published, Date.now()];
      measuring = false;
      const seconds = (t1 - t0) / 1000;
      const sorted = [...lags].sort((x, y) => x - y);
      const row = {
        nodes: size,
        offeredPerSec: Math.round((p1 - p0) / seconds),
        appendedPerSec: Math.round((a1 - a0) / seconds),
        appendedToOffered: +((a1 - a0) / Math.max(1, p1 - p0)).toFixed(3),
        lagP50Ms: percentile(sorted, 50),
        lagP99Ms: percentile(sorted, 99),
        lagSamples: sorted.length,
        skippedPublishTicks: fleet.skippedTicks,
      };
      results.push(row);
      console.log(`[bench]   ${JSON.stringify(row)}`);
    }
    const holding = results.filter((r) => r.lagP99Ms <= 1000 && r.appendedToOffered >= 0.95);
    const largest = holding[holding.length - 1] ?? results[0];
    const detection = await measureOfflineDetection(fleet, hub.liveness, largest.nodes);
    fleet.stop();
    const agentRss = await measureAgentRss(hub.url, kafka.brokers);
    report('heartbeats', {
      ttlSeconds: TTL_S,
      intervalSeconds: INTERVAL_S,
      windowSeconds: WINDOW_S,
      fleets: results,
      largestHolding: largest.nodes,
      detection,
      agentRss,
    });
  } finally {
    fleet.stop();
    await hub.close();
    await projector.stop();
    await Promise.all([hubBus.close(), simBus.close()]);
    await store.close();
    await readModels.destroy();
    await kafka.stop();
    await db.stop();
  }
}

/** Waits until the projector's recent heartbeat lag is under a second (or `maxMs` passes). */
async function settle(lags: () => number[], maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    lags().length = 0;
    measuringForSettle = true;
    await sleep(2000);
    measuringForSettle = false;
    const recent = [...lags()].sort((a, b) => a - b);
    if (recent.length > 0 && percentile(recent, 90) < 1000) return;
  }
}

async function measureOfflineDetection(
  fleet: FleetSimulator,
  liveness: { get(id: string): { status: string } | undefined },
  size: number,
): Promise<Record<string, number>> {
  console.log(
    `[bench] offline detection with all ${fleet.agents.length} nodes heartbeating (largest holding: ${size}): silencing 20`,
  );
  const { nodeIds, at } = fleet.silence(20);
  const detectedAfter: number[] = [];
  const pending = new Set(nodeIds);
  while (pending.size > 0 && Date.now() - at < 60000) {
    for (const id of [...pending]) {
      if (liveness.get(id)?.status === 'offline') {
        detectedAfter.push(Date.now() - at);
        pending.delete(id);
      }
    }
    await sleep(50);
  }
  const sorted = detectedAfter.sort((x, y) => x - y);
  return {
    fleetNodes: fleet.agents.length,
    silenced: nodeIds.length,
    detected: sorted.length,
    maxMs: sorted[sorted.length - 1] ?? NaN,
    p50Ms: percentile(sorted, 50),
    boundMs: (TTL_S + INTERVAL_S) * 1000,
  };
}

async function measureAgentRss(hubUrl: string, brokers: string[]): Promise<Record<string, number>> {
  console.log('[bench] agent RSS: one real agent process idling 20 s');
  const dir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-'));
  const rssOf = (pid: number): number =>
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  const agent = new AppProcess('agent', 'apps/agent/src/main.ts', {
    HCN_HUB_URL: hubUrl,
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_DOMAIN: 'east',
    HCN_DATA_DIR: dir,
    KAFKA_BROKERS: brokers.join(','),
  }).start();
  const baseline = new AppProcess('baseline', 'bench/idle-baseline.ts', {}).start();
  try {
    await sleep(20000);
    return { agentRssMiB: +rssOf(agent.pid!).toFixed(1), baselineRssMiB: +rssOf(baseline.pid!).toFixed(1) };
  } finally {
    await agent.kill('SIGTERM');
    await baseline.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
