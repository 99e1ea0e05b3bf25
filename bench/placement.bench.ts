import { workloadStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { KafkaMessageBus } from '@hcn/messaging';
import { commandTopicFor } from '@hcn/platform';
import { spawnSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafkaForTests } from '../test/services/kafka';
import { freePort } from '../test/services/ports';
import { AppProcess } from '../test/support/processes';
import { send } from '../apps/agent/src/hub-client';
import { backgroundCpu, cpuByGroup, cpuPerUnit, marginalCpuPerUnit } from './cpu-breakdown';
import { PLACEMENT_SITES, definePlacementTree } from './placement-tree';
import { FleetSimulator } from './fleet-simulator';
import { PlacementAcker } from './placement-acker';
import { PG_STATEMENTS, pgStatements } from './pg-statements';
import { latencyBaselines } from './placement-baselines';
import { benchDatabase, percentile, progress, report, hubNodeArgs, projectorNodeArgs } from './support';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 100);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 15);
/** Seconds with no submissions over which the background CPU (heartbeats, timers) is measured. */
const BACKGROUND_S = 10;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
/** Workloads per request and clients of the batched phase (`POST /v1/workloads/batch`). */
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 100);
const BATCH_CLIENTS = Number(process.env.BENCH_BATCH_CLIENTS ?? 4);
/** Phases to run, comma-separated (default all): paced, saturated, batched, real. */
const PHASES = new Set((process.env.BENCH_PLACEMENT_PHASES ?? 'paced,saturated,batched,real').split(','));
const JOIN_TOKEN = 'bench-join-token-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
/** The nodes join the placement tree's 20 sites. */
const DOMAINS = PLACEMENT_SITES;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const spec = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `bench-${i}`,
  command: 'true',
  resources: { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 },
  ...extra,
});

/**
 * One submission, over `node:http` with keep-alive (the agent's client): the global fetch cost this process about
 * 1.5 ms of CPU per request, on the same two cores as the hub.
 */
async function submit(hubUrl: string, body: unknown): Promise<string> {
  const url = new URL(`${hubUrl}/v1/workloads`);
  const { status, text } = await send(url, 'POST', JSON.stringify(body), ADMIN_TOKEN);
  if (status !== 201) throw new Error(`submit failed: ${status} ${text}`);
  return (JSON.parse(text) as { workloadId: string }).workloadId;
}

/** One batch of workloads in one request; their ids in the order given. */
async function submitBatch(hubUrl: string, bodies: unknown[]): Promise<string[]> {
  const url = new URL(`${hubUrl}/v1/workloads/batch`);
  const { status, text } = await send(url, 'POST', JSON.stringify({ workloads: bodies }), ADMIN_TOKEN);
  if (status !== 201) throw new Error(`batch failed: ${status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { workloads: Array<{ workloadId: string }> }).workloads.map(
    (w) => w.workloadId,
  );
}

/** The processes whose CPU time is split out per placement. */
/** The apps' process ids, and the CPU each group uses per second with no load offered (measured once). */
type Pids = { hub?: number; projector?: number; background?: Record<string, number> };

function summary(latencies: number[]): { count: number; p50Ms: number; p99Ms: number; maxMs: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1],
  };
}

/** One scrape of the hub's metrics: event-loop delay since the last scrape, and the submission stage buckets. */
interface HubScrape {
  readonly loop: { p99Ms: number; maxMs: number };
  /** `stage le` -> cumulative count of hcn_submission_stage_seconds. */
  readonly stages: Map<string, number>;
}

/** Scrapes the hub's metrics (each scrape resets the event-loop delay figures). */
async function scrapeHub(hubUrl: string): Promise<HubScrape> {
  const text = await (await fetch(`${hubUrl}/metrics`)).text();
  const seconds = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  const stages = new Map<string, number>();
  for (const m of text.matchAll(
    /^hcn_submission_stage_seconds_bucket\{le="([^"]+)",stage="(\w+)"\} (\d+)$/gm,
  ))
    stages.set(`${m[2]} ${m[1]}`, Number(m[3]));
  const loop = {
    p99Ms: +(seconds('nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1),
    maxMs: +(seconds('nodejs_eventloop_lag_max_seconds') * 1000).toFixed(1),
  };
  return { loop, stages };
}

/**
 * Per stage of the submissions between two scrapes (quota hold, decisions and reservations, the append, the
 * whole handler): p50 and p99 as the upper bound of the histogram bucket they fall in, in ms.
 */
function stageFigures(before: HubScrape, after: HubScrape): Record<string, { p50Ms: number; p99Ms: number }> {
  const figures: Record<string, { p50Ms: number; p99Ms: number }> = {};
  for (const stage of ['quota', 'reserve', 'append', 'total']) {
    const bounds = [...after.stages.keys()]
      .filter((k) => k.startsWith(`${stage} `))
      .map((k) => k.slice(stage.length + 1));
    const count = (le: string) =>
      (after.stages.get(`${stage} ${le}`) ?? 0) - (before.stages.get(`${stage} ${le}`) ?? 0);
    const total = count('+Inf');
    const at = (q: number) => {
      const bound = bounds.find((le) => count(le) >= q * total);
      return bound === undefined || bound === '+Inf' ? Infinity : Number(bound) * 1000;
    };
    if (total > 0) figures[stage] = { p50Ms: at(0.5), p99Ms: at(0.99) };
  }
  return figures;
}

/** Submissions at a fixed rate; latency from the start of each POST to the run command reaching the fleet. */
async function paced(hubUrl: string, acker: PlacementAcker, rate: number, seconds: number, offset: number) {
  const sentAt = new Map<string, { sent: number; answered: number }>();
  // How long timers in the hub and in this load generator were held up while submissions ran (tail diagnosis).
  const before = await scrapeHub(hubUrl);
  const ownLoop = monitorEventLoopDelay({ resolution: 5 });
  ownLoop.enable();
  const total = rate * seconds;
  const started = Date.now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const t0 = Date.now();
    inFlight.push(
      submit(hubUrl, spec(offset + i)).then((id) => void sentAt.set(id, { sent: t0, answered: Date.now() })),
    );
    if (i % rate === 0) progress(`paced ${rate}/s`, i, total);
  }
  await Promise.all(inFlight);
  ownLoop.disable();
  const after = await scrapeHub(hubUrl);
  const eventLoopDelay = {
    hub: after.loop,
    loadGenerator: {
      p99Ms: +(ownLoop.percentile(99) / 1e6).toFixed(1),
      maxMs: +(ownLoop.max / 1e6).toFixed(1),
    },
  };
  progress(`paced ${rate}/s`, total, total);
  await sleep(2000);
  const latencies = [...sentAt]
    .map(([id, t]) => (acker.received.get(id) ?? NaN) - t.sent)
    .filter(Number.isFinite);
  const samplesDir = process.env.BENCH_PLACEMENT_SAMPLES_DIR; // raw samples, for finding where a tail comes from
  if (samplesDir) {
    const rows = [...sentAt].map(([id, t]) => [t.sent, t.answered, acker.received.get(id) ?? null]);
    writeFileSync(`${samplesDir}/paced-${rate}.json`, JSON.stringify(rows));
  }
  return {
    offeredPerSec: rate,
    missing: sentAt.size - latencies.length,
    submitToAgentReceived: summary(latencies),
    // where the time goes: the POST (admission and placement) and after its answer (dispatch, Kafka, agent)
    submitToAnswered: summary([...sentAt.values()].map((t) => t.answered - t.sent)),
    answeredToAgentReceived: summary(
      [...sentAt].map(([id, t]) => (acker.received.get(id) ?? NaN) - t.answered).filter(Number.isFinite),
    ),
    eventLoopDelay,
    // the hub's own view of each submission's stages (histogram buckets: upper bounds)
    hubSubmissionStages: stageFigures(before, after),
  };
}

/**
 * `clients` clients each sending what `send` sends, one request after another, for `seconds`; placements/s as the
 * fleet saw them, latency from the start of each request to each of its workloads' run command reaching the fleet.
 */
async function closedLoop(
  acker: PlacementAcker,
  label: string,
  clients: number,
  seconds: number,
  pids: Pids,
  send: () => Promise<string[]>,
) {
  const cpuBefore = cpuByGroup(pids);
  const sentAt = new Map<string, number>();
  const answered: number[] = [];
  const until = Date.now() + seconds * 1000;
  const receivedBefore = acker.received.size;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const start = Date.now();
        const ids = await send();
        answered.push(Date.now() - start);
        for (const id of ids) sentAt.set(id, start);
        progress(label, Math.min(seconds, Math.round((Date.now() - t0) / 1000)), seconds, 1000);
      }
    }),
  );
  const settleMs = 3000;
  await sleep(settleMs);
  const elapsed = (Date.now() - settleMs - t0) / 1000;
  const windowSeconds = (Date.now() - t0) / 1000;
  const cpuAfter = cpuByGroup(pids);
  const placed = acker.received.size - receivedBefore;
  const latencies = [...sentAt]
    .map(([id, at]) => (acker.received.get(id) ?? NaN) - at)
    .filter(Number.isFinite);
  return {
    clients,
    submitted: sentAt.size,
    missing: sentAt.size - latencies.length,
    placementsPerSec: Math.round(placed / elapsed),
    requestAnswered: summary(answered),
    submitToAgentReceived: summary(latencies),
    cpuMsPerPlacement: cpuPerUnit(cpuBefore, cpuAfter, placed),
    marginalCpuMsPerPlacement: pids.background
      ? marginalCpuPerUnit(cpuBefore, cpuAfter, placed, pids.background, windowSeconds)
      : undefined,
  };
}

/** As many single submissions as `CONCURRENCY` clients can make for `seconds`. */
function saturated(hubUrl: string, acker: PlacementAcker, seconds: number, offset: number, pids: Pids) {
  let next = offset;
  return closedLoop(acker, 'saturated', CONCURRENCY, seconds, pids, async () => [
    await submit(hubUrl, spec(next++)),
  ]);
}

/** Batches of `BATCH_SIZE` workloads from `BATCH_CLIENTS` clients for `seconds`. */
async function batched(hubUrl: string, acker: PlacementAcker, seconds: number, offset: number, pids: Pids) {
  let next = offset;
  const figures = await closedLoop(acker, 'batched', BATCH_CLIENTS, seconds, pids, () =>
    submitBatch(
      hubUrl,
      Array.from({ length: BATCH_SIZE }, () => spec(next++)),
    ),
  );
  return { batchSize: BATCH_SIZE, ...figures };
}

/** A real agent process running real processes: submit → AllocationStarted (the agent's start time). */
async function realProcesses(hubUrl: string, dbUrl: string, brokers: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-'));
  const agent = new AppProcess(
    'agent',
    'apps/agent/src/main.ts',
    {
      HCN_HUB_URL: hubUrl,
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_DOMAIN: 'real',
      HCN_DATA_DIR: dir,
      KAFKA_BROKERS: brokers.join(','),
    },
    true,
  ).start();
  const store = await PostgresEventStore.connect({ connectionString: dbUrl });
  try {
    await sleep(8000); // registration and the command consumer joining its group
    const sent: Array<[string, number]> = [];
    for (let i = 0; i < 40; i++) {
      const t0 = Date.now();
      sent.push([
        await submit(hubUrl, spec(900000 + i, { constraints: { domains: { affinity: ['real'] } } })),
        t0,
      ]);
      progress('real processes', i + 1, 40);
      await sleep(200);
    }
    await sleep(5000);
    const latencies: number[] = [];
    for (const [id, t0] of sent) {
      const started = (await store.readStream(workloadStream(id))).find(
        (e) => e.type === 'AllocationStarted',
      );
      if (started) latencies.push(Date.parse(started.data.startedAt) - t0);
    }
    return { submitted: sent.length, submitToProcessStarted: summary(latencies) };
  } finally {
    await agent.kill('SIGTERM');
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Placement end to end in distributed mode: hub and projector as their own compiled processes over real Kafka and
 * the PostgreSQL store, 1,000 simulated nodes acknowledging the run commands they receive, then one real agent.
 */
export async function run(): Promise<void> {
  console.log('[bench] building (npm run build) so the apps run compiled, as in production');
  if (spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' }).status !== 0)
    throw new Error('build failed');
  const db = await benchDatabase('placement');
  // the broker with Kafka's 1 GiB heap (see KafkaJvmOptions): the tests' quick-start JVM pauses for 20-40 ms every
  // few seconds and for over 100 ms on a full collection, which the latencies here would measure
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`), { jvm: 'bench' });
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
      HCN_ADMIN_TOKEN: ADMIN_TOKEN,
      HCN_NODE_TTL_SECONDS: '60',
      HCN_HEARTBEAT_INTERVAL_SECONDS: '5',
      // the simulated fleet sends at a fixed rate: the hub keeps the interval and TTL as configured
      HCN_HEARTBEATS_MAX_PER_SECOND: '0',
      // the simulated fleet neither starts nor lists its allocations: no resends or reconciliation measured
      HCN_START_DEADLINE_SECONDS: '86400',
    },
    true,
    hubNodeArgs(),
  ).start();
  if (process.env.BENCH_PLACEMENT_SAMPLES_DIR)
    writeFileSync(`${process.env.BENCH_PLACEMENT_SAMPLES_DIR}/hub-started.json`, JSON.stringify(Date.now()));
  const projector = new AppProcess(
    'projector',
    'apps/projector/src/main.ts',
    common,
    true,
    projectorNodeArgs(),
  ).start();
  if (process.env.BENCH_PROJECTOR_NICE) setPriority(projector.pid!, Number(process.env.BENCH_PROJECTOR_NICE));
  const bus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-fleet' });
  const fleet = new FleetSimulator({ hubUrl, joinToken: JOIN_TOKEN, bus, domains: DOMAINS });
  const acker = new PlacementAcker(bus, fleet);
  try {
    for (let i = 0; i < 240 && (await fetch(`${hubUrl}/readyz`).catch(() => undefined))?.status !== 200; i++)
      await sleep(250);
    await definePlacementTree(hubUrl, ADMIN_TOKEN);
    await fleet.grow(NODES, 16, (done) => progress('registering', done, NODES));
    fleet.start(5000, 20);
    await bus.createTopics(DOMAINS.map((d) => ({ name: commandTopicFor(d) })));
    await acker.start(DOMAINS);
    const baselines = await latencyBaselines(hubUrl, bus, CONCURRENCY);
    console.log(`[bench] baselines ${JSON.stringify(baselines)}`);
    await paced(hubUrl, acker, 20, 5, 0); // warm-up
    const apps = { hub: hub.pid, projector: projector.pid };
    console.log(
      `[bench] background: CPU over ${BACKGROUND_S} s with no submissions (heartbeats of ${NODES} nodes)`,
    );
    const background = await backgroundCpu(apps, BACKGROUND_S);
    console.log(`[bench] background CPU ms per second ${JSON.stringify(background)}`);
    const pids: Pids = { ...apps, background };
    const light = PHASES.has('paced') ? await paced(hubUrl, acker, 25, WINDOW_S, 5_000) : undefined;
    if (light) console.log(`[bench] paced ${JSON.stringify(light)}`);
    const atRate = PHASES.has('paced') ? await paced(hubUrl, acker, PACED_RATE, WINDOW_S, 10_000) : undefined;
    if (atRate) console.log(`[bench] paced ${JSON.stringify(atRate)}`);
    if (PG_STATEMENTS && PHASES.has('saturated')) await pgStatements(db.url, 'reset');
    const flat = PHASES.has('saturated')
      ? await saturated(hubUrl, acker, WINDOW_S, 100_000, pids)
      : undefined;
    if (flat) console.log(`[bench] saturated ${JSON.stringify(flat)}`);
    if (PG_STATEMENTS && flat)
      console.log(
        `[bench] PostgreSQL statements (saturated):\n${(await pgStatements(db.url, 'top')).join('\n')}`,
      );
    if (PG_STATEMENTS) await pgStatements(db.url, 'reset');
    const many = PHASES.has('batched') ? await batched(hubUrl, acker, WINDOW_S, 1_000_000, pids) : undefined;
    if (PG_STATEMENTS)
      console.log(`[bench] PostgreSQL statements:\n${(await pgStatements(db.url, 'top')).join('\n')}`);
    if (many) console.log(`[bench] batched ${JSON.stringify(many)}`);
    const real = PHASES.has('real') ? await realProcesses(hubUrl, db.url, kafka.brokers) : undefined;
    const healthz = baselines.healthz.requestsPerSec;
    report(process.env.BENCH_PLACEMENT_PHASES ? `placement-${[...PHASES].join('-')}` : 'placement', {
      nodes: NODES,
      backgroundCpuMsPerSec: background,
      baselines,
      pacedLight: light,
      paced: atRate,
      saturated: flat,
      batched: many,
      realProcesses: real,
      ratios: {
        placementsPerSecToHealthzRequestsPerSec: flat && +(flat.placementsPerSec / healthz).toFixed(3),
        batchedPlacementsPerSecToHealthzRequestsPerSec: many && +(many.placementsPerSec / healthz).toFixed(3),
        batchedToSinglePlacementsPerSec:
          many && flat && +(many.placementsPerSec / flat.placementsPerSec).toFixed(2),
        pacedP99ToKafkaRoundTripP99:
          atRate && +(atRate.submitToAgentReceived.p99Ms / baselines.kafkaRoundTrip.p99Ms).toFixed(2),
      },
      targets: {
        placementsPerSecAtLeast2000: flat && flat.placementsPerSec >= 2000,
        batchedPlacementsPerSecAtLeast2000: many && many.placementsPerSec >= 2000,
        pacedP99AtMost50Ms: atRate && atRate.submitToAgentReceived.p99Ms <= 50,
        processStartedP99AtMost1s: real && real.submitToProcessStarted.p99Ms <= 1000,
      },
    });
  } finally {
    fleet.stop();
    await acker.stop().catch(() => undefined);
    await bus.close();
    await hub.kill('SIGTERM');
    await projector.kill('SIGTERM');
    await kafka.stop();
    await db.stop();
  }
}
