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
/**
 * CPU reservations of the HCN runs: the brief's 10 millicores (a 1 % quota, in force while runc starts the
 * container's first process) and a whole core (a quota that does not hold the start back).
 */
const CPU_MILLIS = (process.env.BENCH_CONTAINER_CPU_MILLIS ?? '10,1000').split(',').map(Number);
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096'];
const SLEEP = [TEST_IMAGE, 'sh', '-c', 'sleep 600'];
/** The baseline, as a user would type it: the agent's runtime, cgroup manager and ulimits, no limits. */
const BASELINE_RUN = [...PODMAN_FLAGS, 'run', '-d', '--rm', ...ULIMITS, ...SLEEP];
/** The same with the limits the agent sets for the first reservation (CPU quota, memory without swap, pids). */
const LIMITED_RUN = [
  ...PODMAN_FLAGS,
  ...['run', '-d', '--rm', '--cpus', String(CPU_MILLIS[0] / 1000), '--memory', '16m', '--memory-swap', '16m'],
  ...['--pids-limit', '1024', ...ULIMITS, ...SLEEP],
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
async function baselineRun(args: string[]): Promise<number> {
  const t0 = wallMs();
  const id = (await podman(args)).trim();
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
  /** Lowering the quota after a start with 250 millicores (0 when the container started with its own). */
  limitCpu: number;
  inspect: number;
  /** Agent time between the engine calls. */
  agentBetweenEngineCalls: number;
  /** Inspect answered to the `started` report on the bus (outbox append and fsync, state file). */
  reportToBus: number;
  /** Report published to AllocationStarted stored (bus, the hub's report consumer, the append). */
  reportToStored: number;
}

type HcnRun = { storedMs: number; seenMs: number; breakdown: Breakdown };

/** One HCN start: submit, wait until AllocationStarted is stored, then delete and remove the container. */
async function hcnRun(
  hub: InProcessHub,
  probe: StageProbe,
  socketPath: string,
  i: number,
  cpuMillis: number,
): Promise<HcnRun> {
  const t0 = wallMs();
  const id = await submitWorkload(hub.url, containerSpec(`bench-${i}`, TEST_IMAGE, cpuMillis));
  const answered = wallMs();
  const started = await waitForEvent(hub.store, id, 'AllocationStarted');
  const seen = wallMs();
  const stored = Date.parse(started.recordedAt);
  const s: StageTimes = probe.take(id);
  await deleteWorkload(hub.url, id);
  await waitForEvent(hub.store, id, 'AllocationStopped');
  await removeContainersOf(socketPath, [id]);
  const span = (x?: [number, number]) => (x ? x[1] - x[0] : NaN);
  const limitMs = s.limitCpu ? span(s.limitCpu) : 0;
  const engineMs = span(s.imageCheck) + span(s.create) + span(s.start) + limitMs + span(s.inspect);
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
      limitCpu: limitMs,
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
  const hcn = new Map<number, HcnRun[]>(CPU_MILLIS.map((m) => [m, []]));
  const baselines = { podmanRun: [] as number[], podmanRunSameLimits: [] as number[] };
  // each round: every HCN variant and both baselines, in an order rotated per round
  const steps: Array<(i: number) => Promise<void>> = [
    ...CPU_MILLIS.map((m) => async (i: number) => {
      const one = await hcnRun(hub, probe, engine.socketPath, i, m);
      if (i >= WARMUP) hcn.get(m)?.push(one);
    }),
    async (i) => void (i >= WARMUP && baselines.podmanRun.push(await baselineRun(BASELINE_RUN))),
    async (i) => void (i >= WARMUP && baselines.podmanRunSameLimits.push(await baselineRun(LIMITED_RUN))),
  ];
  try {
    await agent.start();
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length](i);
      if (i >= WARMUP) progress('submit -> running, interleaved with podman run', i + 1 - WARMUP, RUNS);
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
  const base = {
    podmanRun: summary(baselines.podmanRun),
    podmanRunSameLimits: summary(baselines.podmanRunSameLimits),
  };
  const ratio = (a: Summary, b: Summary) => ({
    p50: +(a.p50Ms / b.p50Ms).toFixed(2),
    p99: +(a.p99Ms / b.p99Ms).toFixed(2),
  });
  const variants: Record<string, unknown> = {};
  const ratios: Record<string, { p50: number; p99: number }> = {};
  for (const [m, runs] of hcn) {
    const stored = summary(runs.map((r) => r.storedMs));
    const stages = Object.fromEntries(
      (Object.keys(runs[0].breakdown) as Array<keyof Breakdown>).map((k) => [
        k,
        summary(runs.map((r) => r.breakdown[k])),
      ]),
    );
    variants[`cpu${m}m`] = {
      submitToAllocationStartedStored: stored,
      submitToSeenByPoller: summary(runs.map((r) => r.seenMs)),
      stages,
    };
    ratios[`cpu${m}mToPodmanRun`] = ratio(stored, base.podmanRun);
    if (m === CPU_MILLIS[0])
      ratios[`cpu${m}mToPodmanRunSameLimits`] = ratio(stored, base.podmanRunSameLimits);
  }
  return {
    runs: RUNS,
    warmup: WARMUP,
    hcn: variants,
    baselines: base,
    baselineCommands: { podmanRun: BASELINE_RUN, podmanRunSameLimits: LIMITED_RUN },
    ratios,
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
  const first = `cpu${CPU_MILLIS[0]}m`;
  const stored = (latency?.hcn as Record<string, { submitToAllocationStartedStored: Summary }> | undefined)?.[
    first
  ]?.submitToAllocationStartedStored;
  const ratio = (latency?.ratios as Record<string, { p50: number; p99: number }> | undefined)?.[
    `${first}ToPodmanRun`
  ];
  report(PARTS.size === 2 ? 'containers' : `containers-${[...PARTS].join('-')}`, {
    commit,
    loadAverageBefore: loadBefore,
    latency,
    agentRss: rss,
    targets: {
      // the first reservation (the brief's 10 millicores) against the plain `podman run`
      ratioP50AtMost1_3: ratio && ratio.p50 <= 1.3,
      ratioP99AtMost1_3: ratio && ratio.p99 <= 1.3,
      p99AtMost1500Ms: stored && stored.p99Ms <= 1500,
      agentRssWith20ContainersAtMost80MB: rss && rss.heldMB <= 80 && (rss.peakMiB * 2 ** 20) / 1e6 <= 80,
    },
  });
}
