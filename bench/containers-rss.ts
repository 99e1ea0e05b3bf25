import { KafkaMessageBus } from '@hcn/messaging';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafkaForTests } from '../test/services/kafka';
import { AppProcess } from '../test/support/processes';
import {
  JOIN_TOKEN,
  containerSpec,
  deleteWorkload,
  removeContainersOf,
  startInProcessHub,
  submitWorkload,
  waitForEvent,
} from './containers-hub';
import { benchDatabase, progress } from './support';

/** Containers running while the agent's RSS is read. */
const CONTAINERS = Number(process.env.BENCH_RSS_CONTAINERS ?? 20);
/** Seconds the agent runs them (heartbeats, log following) before the last reading. */
const HOLD_S = Number(process.env.BENCH_RSS_HOLD_SECONDS ?? 30);
/** The agent's heap settings in docker-compose (apps/agent/README.md). */
const AGENT_NODE_OPTIONS =
  process.env.BENCH_AGENT_NODE_OPTIONS ?? '--max-semi-space-size=1 --max-old-space-size=64';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS of a process in MiB (VmRSS), or NaN when it is gone. */
export function rssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return +(kb / 1024).toFixed(1);
  } catch {
    return NaN;
  }
}

/** Readings of the agent process's RSS (MiB). */
export interface AgentRss {
  readonly nodeOptions: string;
  readonly containers: number;
  /** After registration, no workloads, 10 s. */
  readonly idleMiB: number;
  /** Highest reading while the containers started and ran. */
  readonly peakMiB: number;
  /** Last reading, `holdSeconds` after the last container started. */
  readonly heldMiB: number;
  readonly holdSeconds: number;
  /** `heldMiB` in MB (10^6 bytes), the unit of the target. */
  readonly heldMB: number;
  /**
   * Idle `node` processes with the same heap flags, by the modules they loaded: none, docker-modem (the agent's engine
   * client), zod and kafkajs (two of the agent's largest), and those two plus docker-modem.
   */
  readonly baselines: Record<string, number>;
}

/** An idle `node` with the agent's heap flags that loads `modules` first (a baseline for the RSS figures). */
function idleNode(modules: string[]) {
  const code = `${modules.map((m) => `require(${JSON.stringify(m)});`).join('')}setInterval(() => {}, 1000);`;
  return spawn(process.execPath, [...AGENT_NODE_OPTIONS.split(' ').filter(Boolean), '-e', code], {
    stdio: 'ignore',
  });
}

/**
 * The agent as its own compiled process (`tsc -p tsconfig.build.json`, skipped with BENCH_SKIP_BUILD=1), with
 * docker-compose's heap settings, on real Kafka (it needs a broker outside embedded mode) against a hub in this
 * process on the same broker: its RSS idle, then with `CONTAINERS` sleeping containers running through it.
 */
export async function measureAgentRss(socketPath: string, image: string): Promise<AgentRss> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    console.log('[bench] compiling the apps (tsc -p tsconfig.build.json) so the agent runs compiled');
    if (spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' }).status !== 0)
      throw new Error('build failed');
  }
  const kafka = await startKafkaForTests((line) => console.log(`[bench] ${line}`));
  const db = await benchDatabase('containers_rss');
  const bus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: 'bench-containers-hub' });
  const hub = await startInProcessHub(db.url, bus);
  const dataDir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-rss-'));
  const agent = new AppProcess(
    'agent',
    'apps/agent/src/main.ts',
    {
      HCN_HUB_URL: hub.url,
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_DOMAIN: 'rss',
      HCN_DATA_DIR: dataDir,
      KAFKA_BROKERS: kafka.brokers.join(','),
      DOCKER_HOST: `unix://${socketPath}`,
      NODE_OPTIONS: AGENT_NODE_OPTIONS,
    },
    true,
  ).start();
  const idle = {
    bareNodeMiB: idleNode([]),
    nodeWithDockerModemMiB: idleNode(['docker-modem']),
    nodeWithZodKafkajsMiB: idleNode(['zod', 'kafkajs']),
    nodeWithZodKafkajsDockerModemMiB: idleNode(['zod', 'kafkajs', 'docker-modem']),
  };
  const endIdle = () => Object.values(idle).forEach((child) => child.kill('SIGKILL'));
  const ids: string[] = [];
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(agent.pid) || 0)), 500);
  try {
    for (let i = 0; i < 240 && !/node \S+ running/.test(agent.output); i++) {
      if (agent.exitCode !== undefined) throw new Error(`agent exited:\n${agent.output}`);
      await sleep(250);
    }
    if (!/node \S+ running/.test(agent.output)) throw new Error(`agent did not start:\n${agent.output}`);
    await sleep(10000); // command consumer joined, a few heartbeats
    const idleMiB = rssMiB(agent.pid);
    const baselines = Object.fromEntries(Object.entries(idle).map(([k, child]) => [k, rssMiB(child.pid)]));
    console.log(`[bench] agent RSS idle: ${idleMiB} MiB; ${JSON.stringify(baselines)}`);
    endIdle();
    for (let i = 0; i < CONTAINERS; i++)
      ids.push(await submitWorkload(hub.url, containerSpec(`rss-${i}`, image)));
    for (let i = 0; i < ids.length; i++) {
      await waitForEvent(hub.store, ids[i], 'AllocationStarted', 60000, 100);
      progress('containers running', i + 1, ids.length);
    }
    await sleep(HOLD_S * 1000);
    const heldMiB = rssMiB(agent.pid);
    console.log(`[bench] agent RSS with ${CONTAINERS} containers after ${HOLD_S} s: ${heldMiB} MiB`);
    return {
      nodeOptions: AGENT_NODE_OPTIONS,
      containers: CONTAINERS,
      idleMiB,
      peakMiB: Math.max(peak, heldMiB),
      heldMiB,
      holdSeconds: HOLD_S,
      heldMB: +((heldMiB * 2 ** 20) / 1e6).toFixed(1),
      baselines,
    };
  } finally {
    clearInterval(sampler);
    endIdle();
    for (const id of ids) await deleteWorkload(hub.url, id).catch(() => undefined);
    for (const id of ids)
      await waitForEvent(hub.store, id, 'AllocationStopped', 30000, 100).catch(() => undefined);
    await agent.kill('SIGTERM');
    await removeContainersOf(socketPath, ids).catch((e: Error) => console.error(`[bench] ${e.message}`));
    await hub.close();
    await bus.close();
    await kafka.stop();
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
