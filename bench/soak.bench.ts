import { PostgresEventStore, SubscriptionHealth } from '@hcn/eventstore';
import { MemoryMessageBus } from '@hcn/messaging';
import { openReadModels } from '@hcn/read-models';
import { startProjector } from '../apps/projector/src/projector';
import { loadHubConfig } from '../apps/hub/src/config';
import { startHub } from '../apps/hub/src/hub';
import { rssMiB } from './containers-rss';
import { FleetSimulator } from './fleet-simulator';
import { benchDatabase, progress, report } from './support';

const JOIN_TOKEN = 'bench-join-token-0123456789';
/** Simulated nodes, each heartbeating once a second. */
const NODES = Number(process.env.BENCH_SOAK_NODES ?? 200);
/** How long the fleet runs (seconds). */
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
/** The first readings are left out: the heap grows into its working size. */
const WARMUP_SECONDS = Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? 60);

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * `npm run bench -- soak`: the embedded hub (hub, projector and in-process bus in one process, as `npm start`)
 * with NODES simulated nodes heartbeating for SECONDS. The process's RSS is read every 5 s; the mean of the first
 * minute after warm-up is compared with the mean of the last minute (target: within 10 %). The simulator runs in
 * the same process, so its memory is in the figures too.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase('soak');
  const store = await PostgresEventStore.connect({ connectionString: database.url });
  const readModels = await openReadModels(database.url);
  const bus = new MemoryMessageBus();
  const subscriptions = new SubscriptionHealth();
  const projector = await startProjector(store, readModels, { health: subscriptions });
  const config = loadHubConfig({
    DATABASE_URL: database.url,
    HCN_HTTP_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // a line per request would swamp the output
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_ADMIN_TOKEN: 'bench-admin-token-0123456789',
    HCN_NODE_TTL_SECONDS: '30',
    HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
    // the simulated fleet sends at a fixed rate: the hub keeps the interval and TTL as configured
    HCN_HEARTBEATS_MAX_PER_SECOND: '0',
  });
  const hub = await startHub(config, { store, bus, readModels, subscriptions });
  const fleet = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: JOIN_TOKEN,
    bus,
    domains: ['east', 'west'],
  });
  const readings: Array<{ atS: number; rssMiB: number; busMessages: number }> = [];
  try {
    await fleet.grow(NODES, 16, (done) => progress('registering nodes', done, NODES));
    fleet.start(1000);
    const t0 = Date.now();
    while (Date.now() - t0 < SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, 5000));
      const atS = Math.round((Date.now() - t0) / 1000);
      readings.push({ atS, rssMiB: rssMiB(process.pid), busMessages: bus.retainedMessages });
      progress('soaking', atS, SECONDS, 30000);
    }
    fleet.stop();
    const steady = readings.filter((r) => r.atS > WARMUP_SECONDS);
    const first = mean(steady.filter((r) => r.atS <= WARMUP_SECONDS + 60).map((r) => r.rssMiB));
    const last = mean(steady.filter((r) => r.atS > SECONDS - 60).map((r) => r.rssMiB));
    const growth = (last - first) / first;
    report('soak', {
      nodes: NODES,
      seconds: SECONDS,
      heartbeatsPerSecond: NODES,
      rssFirstMinuteMiB: +first.toFixed(1),
      rssLastMinuteMiB: +last.toFixed(1),
      growth: +growth.toFixed(3),
      maxRetainedBusMessages: Math.max(...readings.map((r) => r.busMessages)),
      targets: { rssFlatWithin10Percent: Math.abs(growth) <= 0.1 },
      readings,
    });
  } finally {
    fleet.stop();
    await hub.close();
    await projector.stop();
    await bus.close();
    await store.close();
    await readModels.destroy();
    await database.stop();
  }
}
