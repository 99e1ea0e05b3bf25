import type { PostgresEventStore } from '@hcn/eventstore';
import { commandTopicFor } from '@hcn/platform';
import { loadavg } from 'node:os';
import { send } from '../apps/agent/src/hub-client';
import { BENCH_ADMIN_TOKEN, BENCH_JOIN_TOKEN, startEmbeddedBenchHub } from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { PLACEMENT_SITES, definePlacementTree } from './placement-tree';
import { cpuPerSecond, treeCpu } from './process-cpu';
import { percentile, progress, report } from './support';
import { TaskFleetAgents } from './taskqueue-fleet';
import {
  AllocationWatch,
  LaunchedWorkloads,
  RoundTimeline,
  refusalsOf,
  roundTimeline,
} from './taskqueue-timeline';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const CORES = Number(process.env.BENCH_TQ_CORES ?? 2);
/** Measured rounds: each `next` stops the previous task's instances and fans the next one out. */
const ROUNDS = Number(process.env.BENCH_TQ_ROUNDS ?? 10);
/** Single submissions of the baseline (1 CPU each, 32 clients). */
const SINGLE = Number(process.env.BENCH_TQ_SINGLE ?? 1000);
const CLIENTS = 32;
const BATCH_SIZE = 100;
const BATCH_CLIENTS = 4;
/** The longest a round (or a baseline phase) may take. */
const ROUND_TIMEOUT_MS = Number(process.env.BENCH_TQ_ROUND_TIMEOUT_SECONDS ?? 180) * 1000;
const NAMESPACE = 'bench';
const INSTANCES = NODES * CORES; // instancesPerCpu 1, one core each
const MEMORY = 64 * 2 ** 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request to the hub as the admin; the parsed answer (a status other than `expect` throws). */
async function api<T>(
  hubUrl: string,
  method: string,
  path: string,
  body: unknown,
  expect: number,
): Promise<T> {
  const { status, text } = await send(
    new URL(`${hubUrl}${path}`),
    method,
    body === undefined ? undefined : JSON.stringify(body),
    BENCH_ADMIN_TOKEN,
  );
  if (status !== expect) throw new Error(`${method} ${path}: ${status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Waits until `done` holds, printing `line()` every 2 s; throws after ROUND_TIMEOUT_MS. */
async function until(label: string, done: () => boolean, line: () => string): Promise<void> {
  const t0 = Date.now();
  let printed = t0;
  while (!done()) {
    if (Date.now() - t0 > ROUND_TIMEOUT_MS) throw new Error(`${label}: timed out (${line()})`);
    if (Date.now() - printed >= 2000) {
      printed = Date.now();
      console.log(`[bench] ${label}: ${line()} (${((printed - t0) / 1000).toFixed(0)} s)`);
    }
    await sleep(20);
  }
}

/** Runs `work(i)` for i < count with `clients` side by side. */
async function clients(count: number, n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const workload = (group: string, i: number, extra: Record<string, unknown> = {}) => ({
  name: `${group}-${i}`,
  namespace: NAMESPACE,
  command: 'true',
  env: { BENCH_GROUP: group },
  resources: { cpuMillis: 1000, memoryBytes: MEMORY },
  ...extra,
});

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s[s.length - 1] };
};

/** Placements and stops of a baseline group: submit with `submit`, wait until all run, stop them all, wait. */
async function baseline(
  hubUrl: string,
  store: PostgresEventStore,
  agents: TaskFleetAgents,
  watch: AllocationWatch,
  group: string,
  instances: number,
  submit: () => Promise<string[]>,
) {
  const after = watch.position;
  const t0 = Date.now();
  const ids = await submit();
  const answeredMs = Date.now() - t0;
  await until(
    group,
    () => watch.startedOf(group).count >= instances,
    () => `${agents.tally(group).runs} run commands, ${watch.startedOf(group).count}/${instances} running`,
  );
  const fleet = agents.tally(group);
  const placeMs = fleet.lastRunMs - t0;
  const runningMs = watch.startedOf(group).lastMs - t0;
  const s0 = Date.now();
  await clients(ids.length, CLIENTS, async (i) => {
    await api(hubUrl, 'POST', `/v1/workloads/${ids[i]}/stop`, { reason: 'bench baseline' }, 202);
  });
  await until(
    `${group} stop`,
    () => watch.stoppedOf(group).count >= instances,
    () => `${watch.stoppedOf(group).count}/${instances} stopped`,
  );
  const stopMs = watch.stoppedOf(group).lastMs - s0;
  const refusals = await refusalsOf(store, after, new Set(ids));
  const figures = {
    workloads: ids.length,
    instances,
    requestsAnsweredMs: answeredMs,
    allRunCommandsMs: placeMs,
    allRunningMs: runningMs,
    placementsPerSec: Math.round((instances / placeMs) * 1000),
    allStoppedMs: stopMs,
    stopsPerSec: Math.round((instances / stopMs) * 1000),
    ...refusals,
  };
  console.log(`[bench] baseline ${group}: ${JSON.stringify(figures)}`);
  return figures;
}

/** One `next`: figures from the HTTP answer, the fleet's commands and the log. */
interface Round {
  round: number;
  nextAnsweredMs: number;
  /** Last `run` command of the new task reaching the fleet (every instance placed and dispatched). */
  allRunCommandsMs: number;
  /** Last AllocationStarted of the new task recorded (every instance running): the headline. */
  allRunningMs: number;
  /** Last `stop-allocation` of the old task reaching the fleet, and its last AllocationStopped recorded. */
  oldStopCommandsMs: number;
  oldAllStoppedMs: number;
  placementsPerSec: number;
  timeline: RoundTimeline;
}

/**
 * `npm run bench -- taskqueue-fanout`: the embedded hub (hub, projector and the in-process bus in one process, as
 * `npm start`) on embedded PostgreSQL with NODES simulated 2-core nodes in the placement benches' tree. Baselines
 * on the same fleet: single submissions (`POST /v1/workloads`, 1 CPU, 32 clients) and batches of the saga's shape
 * (`POST /v1/workloads/batch`, one 2-replica workload pinned to each node), each stopped again. Then one queue of
 * ROUNDS + 1 tasks and `POST /v1/taskqueues/:id/next` ROUNDS + 1 times: each fans the next task out to every
 * node (2,000 instances) and stops the previous one's; a round ends when the log holds every new AllocationStarted
 * and every old AllocationStopped.
 */
export async function run(): Promise<void> {
  const embedded = await startEmbeddedBenchHub('taskqueue', {
    HCN_NODE_TTL_SECONDS: '60',
    HCN_HEARTBEAT_INTERVAL_SECONDS: '5',
    HCN_HEARTBEATS_MAX_PER_SECOND: '0',
  });
  const { hub, bus, store } = embedded;
  const fleet: FleetSimulator = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: BENCH_JOIN_TOKEN,
    bus,
    domains: PLACEMENT_SITES,
    cpuCores: CORES,
    runningOf: (nodeId) => agents.runningOn(nodeId), // heartbeats start once `agents` is set
  });
  const agents: TaskFleetAgents = new TaskFleetAgents(bus, fleet);
  const watch = new AllocationWatch(store, agents);
  try {
    await definePlacementTree(hub.url, BENCH_ADMIN_TOKEN);
    await fleet.grow(NODES, 16, (done) => progress('registering', done, NODES));
    fleet.start(5000, 20);
    await bus.createTopics(PLACEMENT_SITES.map((d) => ({ name: commandTopicFor(d) })));
    await agents.start(PLACEMENT_SITES);
    watch.start();
    await sleep(3000);
    const load = loadavg()[0];
    console.log(`[bench] ${NODES} nodes x ${CORES} cores; load average ${load.toFixed(2)}`);

    const single = await baseline(hub.url, store, agents, watch, 'single', SINGLE, async () => {
      const ids: string[] = new Array(SINGLE);
      await clients(SINGLE, CLIENTS, async (i) => {
        ids[i] = (
          await api<{ workloadId: string }>(hub.url, 'POST', '/v1/workloads', workload('single', i), 201)
        ).workloadId;
        progress('single submissions', i + 1, SINGLE, 2000);
      });
      return ids;
    });
    const nodeIds = fleet.agents.map((a) => a.nodeId);
    const batched = await baseline(hub.url, store, agents, watch, 'batched', INSTANCES, async () => {
      const ids: string[] = [];
      const batches = Math.ceil(nodeIds.length / BATCH_SIZE);
      await clients(batches, BATCH_CLIENTS, async (b) => {
        const body = nodeIds
          .slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE)
          .map((nodeId, i) =>
            workload('batched', b * BATCH_SIZE + i, { replicas: CORES, constraints: { nodes: [nodeId] } }),
          );
        const answer = await api<{ workloads: Array<{ workloadId: string }> }>(
          hub.url,
          'POST',
          '/v1/workloads/batch',
          { workloads: body },
          201,
        );
        ids.push(...answer.workloads.map((w) => w.workloadId));
      });
      return ids;
    });

    const queue = await api<{ queueId: string }>(
      hub.url,
      'POST',
      '/v1/taskqueues',
      { name: 'fanout', namespace: NAMESPACE },
      201,
    );
    const path = `/v1/taskqueues/${queue.queueId}`;
    const tasks: Array<{ id: string; name: string }> = [];
    for (let i = 0; i <= ROUNDS; i++) {
      const name = `task-${i}`;
      const added = await api<{ taskId: string }>(
        hub.url,
        'POST',
        `${path}/tasks`,
        { name, command: 'true', instancesPerCpu: 1, memoryBytes: MEMORY, stopGraceSeconds: 5 },
        201,
      );
      tasks.push({ id: added.taskId, name });
    }
    const launched: LaunchedWorkloads = new Map();
    const rounds: Round[] = [];
    let cpu = treeCpu({});
    let cpuStart = Date.now();
    for (let r = 0; r <= ROUNDS; r++) {
      if (r === 1) [cpu, cpuStart] = [treeCpu({}), Date.now()]; // the measured rounds' CPU
      const fresh = tasks[r];
      const old = r > 0 ? tasks[r - 1] : undefined;
      const after = watch.position;
      const t0 = Date.now();
      await api(hub.url, 'POST', `${path}/next`, {}, 200);
      const nextAnsweredMs = Date.now() - t0;
      await until(
        `round ${r}`,
        () =>
          watch.startedOf(fresh.name).count >= INSTANCES &&
          (!old || watch.stoppedOf(old.name).count >= INSTANCES),
        () =>
          `${fresh.name} ${agents.tally(fresh.name).runs} run commands, ` +
          `${watch.startedOf(fresh.name).count}/${INSTANCES} running` +
          (old ? `; ${old.name} ${watch.stoppedOf(old.name).count}/${INSTANCES} stopped` : ''),
      );
      const timeline = await roundTimeline(store, after, t0, fresh.id, old?.id, launched);
      const runs = agents.tally(fresh.name);
      const stops = old ? agents.tally(old.name) : undefined;
      const round: Round = {
        round: r,
        nextAnsweredMs,
        allRunCommandsMs: runs.lastRunMs - t0,
        allRunningMs: watch.startedOf(fresh.name).lastMs - t0,
        oldStopCommandsMs: stops ? stops.lastStopMs - t0 : NaN,
        oldAllStoppedMs: old ? watch.stoppedOf(old.name).lastMs - t0 : NaN,
        placementsPerSec: Math.round((INSTANCES / (runs.lastRunMs - t0)) * 1000),
        timeline,
      };
      rounds.push(round);
      const { launchesRecorded: l, submitted: s, stopRequested: q, placed: p } = timeline;
      console.log(
        `[bench] round ${r}${r === 0 ? ' (empty fleet, warm-up)' : ''}: all running ${round.allRunningMs} ms ` +
          `(${round.placementsPerSec} placements/s); next answered ${nextAnsweredMs} ms, launches recorded ` +
          `${l.lastMs} ms, submitted ${s.firstMs}-${s.lastMs} ms, stops requested ${q.firstMs}-${q.lastMs} ms, ` +
          `old stopped ${round.oldAllStoppedMs} ms, placed ${p.firstMs}-${p.lastMs} ms; ` +
          `unschedulable ${timeline.unschedulable}, rejections ${timeline.delegationRejected}`,
      );
    }
    const cpuUsed = cpuPerSecond(cpu, treeCpu({}), (Date.now() - cpuStart) / 1000);
    const measured = rounds.slice(1);
    const counts = await api<{ instances: Record<string, number> }>(
      hub.url,
      'GET',
      `${path}/tasks/${tasks[ROUNDS].id}`,
      undefined,
      200,
    );
    const fanOut = {
      allRunningMs: summary(measured.map((r) => r.allRunningMs)),
      allRunCommandsMs: summary(measured.map((r) => r.allRunCommandsMs)),
      nextAnsweredMs: summary(measured.map((r) => r.nextAnsweredMs)),
      oldAllStoppedMs: summary(measured.map((r) => r.oldAllStoppedMs)),
      placementsPerSec: summary(measured.map((r) => r.placementsPerSec)),
    };
    const medianRate = fanOut.placementsPerSec.p50;
    report('taskqueue-fanout', {
      nodes: NODES,
      coresPerNode: CORES,
      instancesPerRound: INSTANCES,
      rounds: ROUNDS,
      loadAverageAtStart: +load.toFixed(2),
      baselines: { single, batched },
      fanOut,
      firstFanOutOnEmptyFleet: rounds[0],
      lastTaskInstances: counts.instances,
      cpuSecondsPerSecondDuringRounds: cpuUsed,
      ratios: {
        fanOutPlacementsPerSecToSingle: +(medianRate / single.placementsPerSec).toFixed(2),
        fanOutPlacementsPerSecToBatched: +(medianRate / batched.placementsPerSec).toFixed(2),
      },
      perRound: rounds,
    });
  } finally {
    fleet.stop();
    await watch.stop();
    await agents.stop();
    await embedded.close();
  }
}
