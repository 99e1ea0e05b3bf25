import {
  KAFKA_CLIENTS,
  KafkaClientName,
  KafkaMessageBus,
  MessageBus,
  OutgoingMessage,
  PlatformaticKafkaMessageBus,
  TopicMessages,
  TopicSpec,
  ConsumeOptions,
  Consumer,
} from '@hcn/messaging';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { startKafkaForTests } from '../test/services/kafka';
import { freePort } from '../test/services/ports';
import { AppProcess } from '../test/support/processes';
import { FleetSimulator } from './fleet-simulator';
import { LagProbe, measureHeartbeatWindow, rssMiB } from './heartbeats.bench';
import { benchDatabase, hubNodeArgs, percentile, progress, report } from './support';

const FLEET = Number(process.env.BENCH_FLEET ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 20);
/** After the warm-up, the hub must have caught up (probed lag p99 under 1.5 s over 5 s) within this much more. */
const SETTLE_MAX_S = Number(process.env.BENCH_SETTLE_SECONDS ?? 120);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 20);
const JOIN_TOKEN = 'bench-join-token-0123456789';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bus that forwards to the bus of the client under test, so one simulated fleet serves every round. */
class SwitchedBus implements MessageBus {
  constructor(public current: MessageBus) {}
  createTopics(topics: readonly TopicSpec[]): Promise<void> {
    return this.current.createTopics(topics);
  }
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.current.publish(topic, messages);
  }
  publishAll(batches: readonly TopicMessages[]): Promise<void> {
    return this.current.publishAll(batches);
  }
  consume(options: ConsumeOptions): Promise<Consumer> {
    return this.current.consume(options);
  }
  close(): Promise<void> {
    return this.current.close();
  }
}

/** One client's measurement window. */
interface RoundRow {
  round: number;
  client: KafkaClientName;
  /** Seconds from the hub's restart until the window began (warm-up, then caught up). */
  settledAfterS: number;
  offeredPerSec: number;
  appendedPerSec: number;
  appendedToOffered: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagSamples: number;
  cpuMsPerHeartbeat: { hub?: number; loadGenerator?: number; kafka?: number };
  hubRssMiB: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Heartbeat ingestion on each Kafka client, interleaved in one run (`BENCH_KAFKA_CLIENTS=kafkajs,platformatic npm
 * run bench -- heartbeats`): one broker, one database, one projector and one simulated fleet of BENCH_FLEET nodes
 * at 1 Hz; each round runs the hub (compiled, HCN_KAFKA_CLIENT=<client>: its report consumer) and the fleet's
 * producer on one client, then on the other (ABBA order across rounds), and measures once the restarted hub has
 * caught up (a warm-up, then lag p99 under 1.5 s): offered and
 * appended heartbeats/s, heartbeat → node_state lag p50/p99, CPU ms per heartbeat of the hub, the load generator
 * (the fleet's producer) and Kafka, the hub's RSS. Writes bench/results/heartbeats-kafka-clients.json.
 */
export async function runKafkaClients(): Promise<void> {
  const clients = (process.env.BENCH_KAFKA_CLIENTS ?? '')
    .split(',')
    .map((c) => c.trim()) as KafkaClientName[];
  const unknown = clients.filter((c) => !(KAFKA_CLIENTS as readonly string[]).includes(c));
  if (clients.length === 0 || unknown.length > 0)
    throw new Error(`BENCH_KAFKA_CLIENTS: ${unknown.join(', ')} not among ${KAFKA_CLIENTS.join(', ')}`);
  console.log('[bench] building (npm run build) so the apps run compiled, as in production');
  const build = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const db = await benchDatabase('heartbeats_kafka_clients');
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`));
  const port = await freePort();
  const hubUrl = `http://127.0.0.1:${port}`;
  const common = { DATABASE_URL: db.url, KAFKA_BROKERS: kafka.brokers.join(',') };
  const hubFor = (client: KafkaClientName) =>
    new AppProcess(
      `hub-${client}`,
      'apps/hub/src/main.ts',
      {
        ...common,
        HCN_KAFKA_CLIENT: client,
        HCN_HTTP_PORT: String(port),
        HCN_JOIN_TOKEN: JOIN_TOKEN,
        HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
        HCN_ADMIN_TOKEN: 'bench-admin-token-0123456789',
        HCN_NODE_TTL_SECONDS: '5',
        HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
        HCN_HEARTBEATS_MAX_PER_SECOND: '0',
        HCN_LIVENESS_SWEEP_MS: '250',
      },
      true,
      hubNodeArgs(),
    );
  const busFor = (client: KafkaClientName): MessageBus =>
    client === 'platformatic'
      ? new PlatformaticKafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-fleet' })
      : new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-fleet' });
  const buses = new Map(clients.map((c) => [c, busFor(c)]));
  const simBus = new SwitchedBus(buses.get(clients[0])!);
  const projector = new AppProcess('projector', 'apps/projector/src/main.ts', common, true).start();
  const pool = new Pool({ connectionString: db.url, max: 2 });
  const fleet = new FleetSimulator({ hubUrl, joinToken: JOIN_TOKEN, bus: simBus, domains: ['east', 'west'] });
  const probe = new LagProbe(pool, fleet);
  let hub: AppProcess | undefined;
  const switchTo = async (client: KafkaClientName) => {
    await hub?.kill('SIGTERM');
    simBus.current = buses.get(client)!;
    hub = hubFor(client).start();
    for (let i = 0; i < 240 && (await fetch(`${hubUrl}/readyz`).catch(() => undefined))?.status !== 200; i++)
      await sleep(250);
  };
  /** Waits the warm-up, then until the restarted hub has caught up with what was sent meanwhile; seconds waited. */
  const settle = async (): Promise<number> => {
    const t0 = Date.now();
    await sleep(WARMUP_S * 1000);
    while (Date.now() - t0 < (WARMUP_S + SETTLE_MAX_S) * 1000) {
      probe.start();
      await sleep(5000);
      probe.stop();
      const sorted = [...probe.samples].sort((x, y) => x - y);
      if (sorted.length >= 50 && percentile(sorted, 99) < 1500) break;
    }
    return Math.round((Date.now() - t0) / 1000);
  };
  const rounds: RoundRow[] = [];
  try {
    await switchTo(clients[0]);
    fleet.start(1000, 20);
    await fleet.grow(FLEET, 16, (done) => progress('registering', done, FLEET));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const client of round % 2 === 1 ? clients : [...clients].reverse()) {
        console.log(`[bench] round ${round}, ${client}: hub and fleet producer on it, warm-up ${WARMUP_S}s`);
        await switchTo(client);
        const settledAfterS = await settle();
        const pids = { hub: hub!.pid, projector: projector.pid };
        const measured = await measureHeartbeatWindow(hubUrl, fleet, probe, pids, WINDOW_S);
        const cpu = measured.cpuMsPerHeartbeat;
        const row: RoundRow = {
          round,
          client,
          settledAfterS,
          ...measured,
          cpuMsPerHeartbeat: { hub: cpu.hub, loadGenerator: cpu.loadGenerator, kafka: cpu.kafka },
          hubRssMiB: rssMiB(hub!.pid),
        };
        rounds.push(row);
        console.log(`[bench]   ${JSON.stringify(row)}`);
      }
    }
    const summary = Object.fromEntries(
      clients.map((client) => {
        const mine = rounds.filter((r) => r.client === client);
        const med = (pick: (r: RoundRow) => number) => median(mine.map(pick));
        return [
          client,
          {
            lagP50Ms: med((r) => r.lagP50Ms),
            lagP99Ms: med((r) => r.lagP99Ms),
            appendedToOffered: med((r) => r.appendedToOffered),
            hubCpuMsPerHeartbeat: med((r) => r.cpuMsPerHeartbeat.hub ?? NaN),
            loadGeneratorCpuMsPerHeartbeat: med((r) => r.cpuMsPerHeartbeat.loadGenerator ?? NaN),
            hubRssMiB: med((r) => r.hubRssMiB),
          },
        ];
      }),
    );
    fleet.stop();
    const agentRssMiB = await agentRss(clients, hubUrl, kafka.brokers);
    report('heartbeats-kafka-clients', {
      fleet: FLEET,
      agentRssMiB,
      warmupSeconds: WARMUP_S,
      windowSeconds: WINDOW_S,
      clients,
      rounds,
      medians: summary,
    });
  } finally {
    fleet.stop();
    probe.stop();
    await sleep(2000); // the fleet's last publish settles before its bus closes
    await Promise.all([...buses.values()].map((b) => b.close().catch(() => undefined)));
    await pool.end();
    await hub?.kill('SIGTERM');
    await projector.kill('SIGTERM');
    await kafka.stop();
    await db.stop();
  }
}

/** RSS of a real agent process (compiled) idling 20 s against the hub, one per client, side by side. */
async function agentRss(
  clients: KafkaClientName[],
  hubUrl: string,
  brokers: string[],
): Promise<Record<string, number>> {
  console.log('[bench] agent RSS: one real agent process per client idling 20 s');
  const dir = mkdtempSync(join(tmpdir(), 'hcn-bench-kafka-agent-'));
  const agents = clients.map((client) =>
    new AppProcess(
      `agent-${client}`,
      'apps/agent/src/main.ts',
      {
        HCN_HUB_URL: hubUrl,
        HCN_JOIN_TOKEN: JOIN_TOKEN,
        HCN_DOMAIN: 'east',
        HCN_DATA_DIR: join(dir, client),
        KAFKA_BROKERS: brokers.join(','),
        HCN_KAFKA_CLIENT: client,
      },
      true,
    ).start(),
  );
  try {
    await sleep(20000);
    return Object.fromEntries(clients.map((client, i) => [client, rssMiB(agents[i].pid)]));
  } finally {
    await Promise.all(agents.map((a) => a.kill('SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  }
}
