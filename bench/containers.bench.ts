import { MemoryMessageBus } from '@hcn/messaging';
import { PODMAN_FLAGS } from '@hcn/platform';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../apps/agent/src/agent';
import { loadAgentConfig } from '../apps/agent/src/config';
import { TEST_IMAGE, startContainerEngineForTests } from '../test/services/containers';
import {
  InProcessHub,
  JOIN_TOKEN,
  containerSpec,
  deleteWorkload,
  removeContainersOf,
  startInProcessHub,
  submitWorkload,
  waitForEvent,
} from './containers-hub';
import { StageProbe, StageTimes, wallMs } from './containers-probe';
import { AgentRss, measureAgentRss } from './containers-rss';
import { benchDatabase, percentile, progress, report } from './support';

const RUNS = Number(process.env.BENCH_CONTAINER_RUNS ?? 200);
const WARMUP = Number(process.env.BENCH_CONTAINER_WARMUP ?? 5);
/** Parts to run, comma-separated (default both): latency, rss. */
const PARTS = new Set((process.env.BENCH_CONTAINER_PARTS ?? 'latency,rss').split(','));
/** The baseline, as a user would type it: the agent's runtime, cgroup manager and ulimits. */
const BASELINE_RUN = [
  ...PODMAN_FLAGS,
  'run',
  '-d',
  '--rm',
  '--ulimit',
  'nofile=1024:1024',
  '--ulimit',
  'nproc=4096:4096',
  TEST_IMAGE,
  'sh',
  '-c',
  'sleep 600',
];

type Summary = { count: number; p50Ms: number; p99Ms: number; maxMs: number };

function summary(values: number[]): Summary {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (p: number) => +percentile(sorted, p).toFixed(1);
  return { count: sorted.length, p50Ms: at(50), p99Ms: at(99), maxMs: at(100) };
}

function podman(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('podman', args, (error, stdout, stderr) =>
      error ? reject(new Error(`podman ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
}

/** One baseline start: `podman run -d` timed until it returns (the container runs), then removed untimed. */
async function baselineRun(): Promise<number> {
  const t0 = wallMs();
  const id = (await podman(BASELINE_RUN)).trim();
  const ms = wallMs() - t0;
  await podman([...PODMAN_FLAGS, 'rm', '-f', '-t', '0', id]);
  return ms;
}

/** Where one HCN start spent its time (ms); NaN where a step was not seen. */
interface Breakdown {
  /** POST /v1/workloads answered (admission, placement, events appended). */
  submitAnswered: number;
  /** Submit to the hub publishing the run command on the bus. */
  submitToCommandPublished: number;
  /** Bus delivery to the agent's runner. */
  busToAgent: number;
  /** From the runner taking the command to the engine's image check (request built, log files opened). */
  agentBeforeEngine: number;
  imageCheck: number;
  create: number;
  start: number;
  inspect: number;
  /** Agent time between the engine calls. */
  agentBetweenEngineCalls: number;
  /** Inspect answered to the `started` report on the bus (outbox append and fsync, state file). */
  reportToBus: number;
  /** Report published to AllocationStarted stored (bus, the hub's report consumer, the append). */
  reportToStored: number;
}

/** One HCN start: submit, wait until AllocationStarted is stored, then delete and remove the container. */
async function hcnRun(
  hub: InProcessHub,
  probe: StageProbe,
  socketPath: string,
  i: number,
): Promise<{ storedMs: number; seenMs: number; breakdown: Breakdown }> {
  const t0 = wallMs();
  const id = await submitWorkload(hub.url, containerSpec(`bench-${i}`, TEST_IMAGE));
  const answered = wallMs();
  const started = await waitForEvent(hub.store, id, 'AllocationStarted');
  const seen = wallMs();
  const stored = Date.parse(started.recordedAt);
  const s: StageTimes = probe.take(id);
  await deleteWorkload(hub.url, id);
  await waitForEvent(hub.store, id, 'AllocationStopped');
  await removeContainersOf(socketPath, [id]);
  const span = (x?: [number, number]) => (x ? x[1] - x[0] : NaN);
  const engineMs = span(s.imageCheck) + span(s.create) + span(s.start) + span(s.inspect);
  const inspected = s.inspect?.[1] ?? NaN;
  return {
    storedMs: stored - t0,
    seenMs: seen - t0,
    breakdown: {
      submitAnswered: answered - t0,
      submitToCommandPublished: (s.commandPublished ?? NaN) - t0,
      busToAgent: (s.commandReceived ?? NaN) - (s.commandPublished ?? NaN),
      agentBeforeEngine: (s.imageCheck?.[0] ?? NaN) - (s.commandReceived ?? NaN),
      imageCheck: span(s.imageCheck),
      create: span(s.create),
      start: span(s.start),
      inspect: span(s.inspect),
      agentBetweenEngineCalls: inspected - (s.imageCheck?.[0] ?? NaN) - engineMs,
      reportToBus: (s.reportPublished ?? NaN) - inspected,
      reportToStored: stored - (s.reportPublished ?? NaN),
    },
  };
}

/** Submit -> container running through the in-process hub and agent, interleaved with the podman baseline. */
async function measureLatency(): Promise<Record<string, unknown>> {
  const engine = await startContainerEngineForTests((line) => console.log(`[bench] ${line}`));
  const db = await benchDatabase('containers');
  const bus = new MemoryMessageBus();
  const hub = await startInProcessHub(db.url, bus);
  const dataDir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-containers-'));
  const config = loadAgentConfig({
    HCN_HUB_URL: hub.url,
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_DOMAIN: 'bench',
    HCN_DATA_DIR: dataDir,
    DOCKER_HOST: `unix://${engine.socketPath}`,
  });
  const agent = new Agent(config, bus, { log: (line) => console.log(line) });
  const probe = new StageProbe().install();
  const hcn: Array<{ storedMs: number; seenMs: number; breakdown: Breakdown }> = [];
  const baseline: number[] = [];
  try {
    await agent.start();
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // alternate which goes first, so neither always follows the other's clean-up
      let one: Awaited<ReturnType<typeof hcnRun>>;
      let plain: number;
      if (i % 2 === 0) {
        one = await hcnRun(hub, probe, engine.socketPath, i);
        plain = await baselineRun();
      } else {
        plain = await baselineRun();
        one = await hcnRun(hub, probe, engine.socketPath, i);
      }
      if (i < WARMUP) continue;
      hcn.push(one);
      baseline.push(plain);
      progress('submit -> running, interleaved with podman run', i + 1 - WARMUP, RUNS);
    }
  } finally {
    probe.uninstall();
    await agent.stop();
    await hub.close();
    await bus.close();
    await db.stop();
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const stored = summary(hcn.map((r) => r.storedMs));
  const base = summary(baseline);
  const stages = Object.fromEntries(
    (Object.keys(hcn[0].breakdown) as Array<keyof Breakdown>).map((k) => [
      k,
      summary(hcn.map((r) => r.breakdown[k])),
    ]),
  );
  return {
    runs: RUNS,
    warmup: WARMUP,
    submitToAllocationStartedStored: stored,
    submitToSeenByPoller: summary(hcn.map((r) => r.seenMs)),
    baselinePodmanRunDetached: base,
    ratios: {
      p50: +(stored.p50Ms / base.p50Ms).toFixed(2),
      p99: +(stored.p99Ms / base.p99Ms).toFixed(2),
    },
    stages,
  };
}

/**
 * Container workloads end to end: submit -> container running (AllocationStarted stored) over `RUNS` runs
 * against `podman run -d` in the same run, and the RSS of a separate agent process with 20 containers running.
 */
export async function run(): Promise<void> {
  const commit = spawnSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).stdout.trim();
  const loadBefore = loadavg().map((l) => +l.toFixed(2));
  const latency = PARTS.has('latency') ? await measureLatency() : undefined;
  if (latency) console.log(`[bench] latency ${JSON.stringify(latency)}`);
  let rss: AgentRss | undefined;
  if (PARTS.has('rss')) {
    const engine = await startContainerEngineForTests((line) => console.log(`[bench] ${line}`));
    try {
      rss = await measureAgentRss(engine.socketPath, TEST_IMAGE);
    } finally {
      await engine.stop();
    }
  }
  const stored = latency?.submitToAllocationStartedStored as Summary | undefined;
  const ratios = latency?.ratios as { p50: number; p99: number } | undefined;
  report(PARTS.size === 2 ? 'containers' : `containers-${[...PARTS].join('-')}`, {
    commit,
    loadAverageBefore: loadBefore,
    latency,
    agentRss: rss,
    targets: {
      ratioP50AtMost1_3: ratios && ratios.p50 <= 1.3,
      ratioP99AtMost1_3: ratios && ratios.p99 <= 1.3,
      p99AtMost1500Ms: stored && stored.p99Ms <= 1500,
      agentRssWith20ContainersAtMost80MB: rss && rss.heldMB <= 80 && (rss.peakMiB * 2 ** 20) / 1e6 <= 80,
    },
  });
}
