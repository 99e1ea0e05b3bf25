import { rssMiB } from './containers-rss';
import { BENCH_JOIN_TOKEN, startEmbeddedBenchHub } from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { progress, report } from './support';

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
  const embedded = await startEmbeddedBenchHub('soak', {
    HCN_NODE_TTL_SECONDS: '30',
    HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
    // the simulated fleet sends at a fixed rate: the hub keeps the interval and TTL as configured
    HCN_HEARTBEATS_MAX_PER_SECOND: '0',
  });
  const { hub, bus } = embedded;
  const fleet = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: BENCH_JOIN_TOKEN,
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
    await embedded.close();
  }
}
