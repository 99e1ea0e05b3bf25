import { MemoryMessageBus } from '@hcn/messaging';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../apps/agent/src/agent';
import { loadAgentConfig } from '../apps/agent/src/config';
import { pickHostPorts } from '../apps/agent/src/services/service-ports';
import {
  InProcessHub,
  JOIN_TOKEN,
  api,
  deleteWorkload,
  startInProcessHub,
  submitWorkload,
  waitForEvent,
} from './containers-hub';
import { wallMs } from './containers-probe';
import { benchDatabase, percentile, progress, report } from './support';

const RUNS = Number(process.env.BENCH_SERVICE_RUNS ?? 100);
const WARMUP = Number(process.env.BENCH_SERVICE_WARMUP ?? 5);
/** The readiness probe's interval (seconds): the first check runs at the start, the next this much later. */
const INTERVAL = Number(process.env.BENCH_SERVICE_PROBE_INTERVAL ?? 0.1);
/** The service's CPU reservation, enforced as its cgroup's quota (Node's start needs about 50 ms of CPU). */
const CPU_MILLIS = Number(process.env.BENCH_SERVICE_CPU_MILLIS ?? 1000);
/** How often the API (and the baseline's server) is polled while waiting (ms). */
const POLL_MS = 5;
/** The service every run starts: a Node HTTP server on PORT answering 200. */
const SERVER = `require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT));`;

type Summary = { count: number; p50Ms: number; p99Ms: number; maxMs: number };

function summary(values: number[]): Summary {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (p: number) => +percentile(sorted, p).toFixed(1);
  return { count: sorted.length, p50Ms: at(50), p99Ms: at(99), maxMs: at(100) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when a GET of `/` on the loopback port answers 200. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** The service as a user submits it (with or without a readiness probe). */
function serviceSpec(name: string, probed: boolean): Record<string, unknown> {
  return {
    name,
    type: 'service',
    command: process.execPath,
    args: ['-e', SERVER],
    ports: [{ name: 'http' }],
    ...(probed ? { readinessProbe: { http: { path: '/', port: 'http' }, intervalSeconds: INTERVAL } } : {}),
    resources: { cpuMillis: CPU_MILLIS, memoryBytes: 2 ** 28 },
    stopGraceSeconds: 0,
  };
}

interface ServiceRun {
  /** Submit to the endpoint listed by GET /v1/workloads/:id (the client's view, polled). */
  listedMs: number;
  /** Submit to AllocationReady stored (its recorded time). */
  readyStoredMs: number;
  /** Submit to AllocationStarted stored. */
  startedStoredMs: number;
}

/** One HCN run: submit, poll the workload until its endpoint is listed, read the times back, delete. */
async function serviceRun(hub: InProcessHub, i: number, probed: boolean): Promise<ServiceRun> {
  const t0 = wallMs();
  const id = await submitWorkload(hub.url, serviceSpec(`svc-${probed ? 'p' : 'n'}-${i}`, probed));
  let listedMs = NaN;
  for (const until = Date.now() + 30000; Date.now() < until; await sleep(POLL_MS)) {
    const view = (await api(hub.url, 'GET', `/v1/workloads/${id}`, undefined, 200)) as {
      service?: { endpoints: Record<string, string[]> };
    };
    if ((view.service?.endpoints.http ?? []).length > 0) {
      listedMs = wallMs() - t0;
      break;
    }
  }
  if (!Number.isFinite(listedMs)) throw new Error(`service ${id}: no endpoint within 30 s`);
  const ready = await waitForEvent(hub.store, id, probed ? 'AllocationReady' : 'AllocationStarted');
  const started = await waitForEvent(hub.store, id, 'AllocationStarted');
  await deleteWorkload(hub.url, id);
  await waitForEvent(hub.store, id, 'AllocationStopped');
  // the store records times by the same clock (one machine): wall time of the event minus the submit's
  const since = (recordedAt: string) => Date.parse(recordedAt) - t0;
  return { listedMs, readyStoredMs: since(ready.recordedAt), startedStoredMs: since(started.recordedAt) };
}

/** The baseline: the same server started by hand (`node -e` with PORT), polled until it answers. */
async function baselineRun(): Promise<number> {
  const [port] = await pickHostPorts([{ name: 'http', hostPort: 0, protocol: 'tcp' }], new Set());
  const t0 = wallMs();
  const child: ChildProcess = spawn(process.execPath, ['-e', SERVER], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port.hostPort) },
    stdio: 'ignore',
  });
  try {
    for (const until = Date.now() + 30000; Date.now() < until; await sleep(POLL_MS))
      if (await answers(port.hostPort)) return wallMs() - t0;
    throw new Error('the baseline server never answered');
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
}

/**
 * Services end to end: submit -> first replica ready (its endpoint listed by the API, AllocationReady stored), with a
 * readiness probe and without, interleaved with the same server started by hand and polled, over `RUNS` rounds.
 */
export async function run(): Promise<void> {
  const commit = spawnSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).stdout.trim();
  const loadBefore = loadavg().map((l) => +l.toFixed(2));
  const db = await benchDatabase('services');
  const bus = new MemoryMessageBus();
  const hub = await startInProcessHub(db.url, bus);
  const dataDir = mkdtempSync(join(tmpdir(), 'hcn-bench-agent-services-'));
  const agent = new Agent(
    loadAgentConfig({
      HCN_HUB_URL: hub.url,
      HCN_JOIN_TOKEN: JOIN_TOKEN,
      HCN_DOMAIN: 'bench',
      HCN_DATA_DIR: dataDir,
      HCN_ADVERTISE_ADDRESS: '127.0.0.1',
    }),
    bus,
  );
  const probed: ServiceRun[] = [];
  const unprobed: ServiceRun[] = [];
  const baseline: number[] = [];
  const steps: Array<(i: number) => Promise<void>> = [
    async (i) => void (i >= WARMUP && probed.push(await serviceRun(hub, i, true))),
    async (i) => void (i >= WARMUP && unprobed.push(await serviceRun(hub, i, false))),
    async (i) => void (i >= WARMUP && baseline.push(await baselineRun())),
  ];
  try {
    await agent.start();
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length](i);
      if (i >= WARMUP)
        progress('submit -> first replica ready, interleaved with a hand start', i + 1 - WARMUP, RUNS);
    }
  } finally {
    await agent.stop();
    await hub.close();
    await bus.close();
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const of = (runs: ServiceRun[]) => ({
    submitToEndpointListed: summary(runs.map((r) => r.listedMs)),
    submitToReadyStored: summary(runs.map((r) => r.readyStoredMs)),
    submitToStartedStored: summary(runs.map((r) => r.startedStoredMs)),
  });
  const withProbe = of(probed);
  const hand = summary(baseline);
  report('services', {
    commit,
    loadAverageBefore: loadBefore,
    runs: RUNS,
    warmup: WARMUP,
    probeIntervalSeconds: INTERVAL,
    cpuMillis: CPU_MILLIS,
    pollMs: POLL_MS,
    withReadinessProbe: withProbe,
    withoutReadinessProbe: of(unprobed),
    baselineHandStartToAnswer: hand,
    ratioListedToHandStart: {
      p50: +(withProbe.submitToEndpointListed.p50Ms / hand.p50Ms).toFixed(2),
      p99: +(withProbe.submitToEndpointListed.p99Ms / hand.p99Ms).toFixed(2),
    },
  });
}
