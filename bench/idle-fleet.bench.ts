import { Consumer, KafkaMessageBus, KafkaMessageBusOptions, defaultDeadLetterTopic } from '@hcn/messaging';
import { commandTopicFor, startEmbeddedPostgres } from '@hcn/platform';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { startKafkaForTests } from '../test/services/kafka';
import { freePort } from '../test/services/ports';
import { AppProcess } from '../test/support/processes';
import { AGENT_GROUP_HEARTBEAT_MS, AGENT_KAFKA_FETCH_WAIT_MS } from '../apps/agent/src/config';
import { FleetSimulator } from './fleet-simulator';
import { cpuPerSecond, treeCpu } from './process-cpu';
import { progress, report, hubNodeArgs } from './support';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
/** Seconds of heartbeats before the window (nodes adopt the interval told at their identity checks). */
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 60);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 30);
/** Rounds of each configuration, interleaved: old, new, old, new, ... */
/** Seconds over which the bare broker and database server are measured first (no apps, no fleet). */
const BARE_S = 15;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Agent command consumers simulated (a sample of the fleet: one consumer group per node, as agents have). */
const CONSUMERS = Number(process.env.BENCH_IDLE_CONSUMERS ?? 50);
const JOIN_TOKEN = 'bench-join-token-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const DOMAINS = Array.from({ length: 20 }, (_, i) => `site-${i}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One configuration under test: the hub's and projector's environment, and the agents' bus settings. */
interface Variant {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly agentBus: Partial<KafkaMessageBusOptions>;
}

const OLD_AGENTS = { fetchMaxWaitMs: 100, groupHeartbeatMs: 1000 };
const NEW_AGENTS = { fetchMaxWaitMs: AGENT_KAFKA_FETCH_WAIT_MS, groupHeartbeatMs: AGENT_GROUP_HEARTBEAT_MS };

/**
 * `old`: the levers of issue 18 item 8 turned off by configuration; `new`: the defaults. The others (run when
 * BENCH_IDLE_VARIANTS names them) are `new` with one lever turned back, to say what each is worth.
 */
const VARIANTS: readonly Variant[] = [
  {
    name: 'old',
    env: { HCN_HEARTBEATS_MAX_PER_SECOND: '0', HCN_REPORTS_BATCH_WINDOW_MS: '200' },
    agentBus: OLD_AGENTS,
  },
  { name: 'new', env: {}, agentBus: NEW_AGENTS },
  { name: 'new-fixed-interval', env: { HCN_HEARTBEATS_MAX_PER_SECOND: '0' }, agentBus: NEW_AGENTS },
  { name: 'new-window-200', env: { HCN_REPORTS_BATCH_WINDOW_MS: '200' }, agentBus: NEW_AGENTS },
  { name: 'new-old-agent-fetch', env: {}, agentBus: OLD_AGENTS },
];

/** The running stack of one round. */
interface Round {
  readonly hub: AppProcess;
  readonly projector: AppProcess;
  readonly hubUrl: string;
  readonly dbName: string;
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: serverUrl });
  admin.on('error', () => undefined); // a server going away fails the query instead of ending the bench
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** Starts hub and projector (compiled) on a fresh database with the variant's environment. */
async function startRound(variant: Variant, serverUrl: string, brokers: string[], i: number): Promise<Round> {
  const dbName = `bench_idle_${variant.name.replace(/\W/g, '_')}_${i}_${Date.now()}`;
  const common = {
    DATABASE_URL: await createDatabase(serverUrl, dbName),
    KAFKA_BROKERS: brokers.join(','),
    ...variant.env,
  };
  const port = await freePort();
  const hubUrl = `http://127.0.0.1:${port}`;
  const hubEnv = {
    ...common,
    HCN_HTTP_PORT: String(port),
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  const hub = new AppProcess('hub', 'apps/hub/src/main.ts', hubEnv, true, hubNodeArgs()).start();
  const projector = new AppProcess('projector', 'apps/projector/src/main.ts', common, true).start();
  for (let t = 0; t < 240 && (await fetch(`${hubUrl}/readyz`).catch(() => undefined))?.status !== 200; t++)
    await sleep(250);
  return { hub, projector, hubUrl, dbName };
}

/** Consumers like the agents' command consumers (own group per node, the domain's command topic). */
async function agentConsumers(fleet: FleetSimulator, bus: KafkaMessageBus): Promise<Consumer[]> {
  const sample = fleet.agents.slice(0, CONSUMERS);
  const topics = [...new Set(sample.map((a) => commandTopicFor(a.domainId)))];
  await bus.createTopics(topics.flatMap((t) => [{ name: t }, { name: defaultDeadLetterTopic(t) }]));
  return Promise.all(
    sample.map((agent) =>
      bus.consume({
        groupId: `hcn-agent-${agent.nodeId}`,
        topics: [commandTopicFor(agent.domainId)],
        fromBeginning: false,
        handleBatch: async () => undefined,
      }),
    ),
  );
}

/** One round: the stack up, the fleet registered and heartbeating, CPU per second over the window. */
async function measure(variant: Variant, serverUrl: string, brokers: string[], i: number) {
  const round = await startRound(variant, serverUrl, brokers, i);
  const bus = new KafkaMessageBus({ brokers, clientId: 'bench-fleet' });
  const agentBus = new KafkaMessageBus({ brokers, clientId: 'bench-agents', ...variant.agentBus });
  const fleet = new FleetSimulator({ hubUrl: round.hubUrl, joinToken: JOIN_TOKEN, bus, domains: DOMAINS });
  let consumers: Consumer[] = [];
  try {
    await fleet.grow(NODES, 16, (done) => progress(`${variant.name} registering`, done, NODES));
    consumers = await agentConsumers(fleet, agentBus);
    fleet.startAsTold();
    await sleep(WARMUP_S * 1000);
    const pids = { hub: round.hub.pid, projector: round.projector.pid };
    const published = fleet.published;
    const load = loadavg()[0];
    const before = treeCpu(pids);
    await sleep(WINDOW_S * 1000);
    const cpu = cpuPerSecond(before, treeCpu(pids), WINDOW_S);
    const figures = {
      variant: variant.name,
      heartbeatsPerSec: +((fleet.published - published) / WINDOW_S).toFixed(1),
      intervalsSeconds: [...new Set(fleet.agents.map((a) => a.intervalMs / 1000))].sort((a, b) => a - b),
      cpuSecondsPerSecond: cpu,
      loadAverage1m: [+load.toFixed(2), +loadavg()[0].toFixed(2)],
    };
    console.log(`[bench] ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    fleet.stop();
    await Promise.all(consumers.map((c) => c.stop().catch(() => undefined)));
    await agentBus.close();
    await bus.close();
    await round.hub.kill('SIGTERM');
    await round.projector.kill('SIGTERM');
    await dropDatabase(serverUrl, round.dbName).catch(() => undefined);
  }
}

/** Mean of each group's figure over rounds. */
function mean(rows: ReadonlyArray<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(rows[0] ?? {}))
    out[key] = +(rows.reduce((s, r) => s + (r[key] ?? 0), 0) / rows.length).toFixed(3);
  return out;
}

/**
 * Idle fleet (issue 18 item 8): hub and projector as compiled processes on their own PostgreSQL and Kafka,
 * `NODES` simulated nodes heartbeating as told and nothing else; CPU seconds per second of every process of this
 * bench's tree over a steady window, the old configuration and the new interleaved.
 */
export async function run(): Promise<void> {
  if (!process.env.BENCH_SKIP_BUILD && spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' }).status)
    throw new Error('build failed');
  const pg = await startEmbeddedPostgres();
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`), { jvm: 'bench' });
  // the floor: the broker and the database server alone, before any app runs
  const bareBefore = treeCpu({});
  await sleep(BARE_S * 1000);
  const bare = cpuPerSecond(bareBefore, treeCpu({}), BARE_S);
  console.log(`[bench] bare broker and database ${JSON.stringify(bare)}`);
  const rounds: Array<Awaited<ReturnType<typeof measure>>> = [];
  const only = (process.env.BENCH_IDLE_VARIANTS ?? 'old,new').split(',');
  try {
    for (let i = 0; i < ROUNDS; i++)
      for (const variant of VARIANTS.filter((v) => only.includes(v.name)))
        rounds.push(await measure(variant, pg.url, kafka.brokers, i));
  } finally {
    await kafka.stop();
    await pg.stop();
  }
  const byVariant = (name: string) => rounds.filter((r) => r.variant === name);
  const means = Object.fromEntries(
    only.map((name) => [name, mean(byVariant(name).map((r) => r.cpuSecondsPerSecond))]),
  );
  const old = means.old ?? {};
  const now = means.new ?? {};
  const suffix = `${only.join() === 'old,new' ? '' : `-${only.join('-')}`}${CONSUMERS === 50 ? '' : `-c${CONSUMERS}`}`;
  report(`idle-fleet${suffix}`, {
    nodes: NODES,
    windowSeconds: WINDOW_S,
    warmupSeconds: WARMUP_S,
    agentConsumersSimulated: CONSUMERS,
    bareBrokerAndDatabase: bare,
    rounds,
    load: process.env.BENCH_IDLE_LOAD_NOTE,
    meanCpuSecondsPerSecond: means,
    systemRatioNewToOld: old.system ? +(now.system / old.system).toFixed(3) : undefined,
    targets: { systemCpuAtMost0_3: now.system === undefined ? undefined : now.system <= 0.3 },
  });
}
