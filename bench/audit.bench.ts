import {
  buildChain,
  readComplianceReport,
  renderChainText,
  reportCsv,
  scanLog,
  REPORT_EVENT_TYPES,
} from '@hcn/audit';
import { AppendRequest, PostgresEventStore } from '@hcn/eventstore';
import { deterministicUuid, workloadStream } from '@hcn/contracts';
import { MONTH_START, SITES, benchSpec, candidates, ev, instantOf, registration } from './audit-fixtures';
import { benchDatabase, percentile, progress, report } from './support';

const TARGET_EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const CHAIN_RUNS = Number(process.env.BENCH_AUDIT_CHAIN_RUNS ?? 500);
const NODES = 200;
const WORKLOAD_EVENTS = 7;

/** A workload whose stream holds 50 hops: 10 decisions of 5 hops, a rejection in each, loss and reschedule. */
async function writeChain(store: PostgresEventStore): Promise<string> {
  const workloadId = deterministicUuid('bench-chain');
  const nodeId = deterministicUuid('bench-chain-node');
  const at = MONTH_START;
  const events = [
    ev(
      'WorkloadSubmitted',
      { workloadId, spec: benchSpec('chain', 'bench'), idempotencyKey: null },
      at,
      'cs',
    ),
  ];
  const scopes = [null, 'global', 'eu', 'eu-s0', 'eu-s0-rack'];
  for (let attempt = 0; attempt < 10; attempt++) {
    const base = { workloadId, instance: 0, attempt };
    const allocationId = deterministicUuid(`bench-chain-a${attempt}`);
    scopes.forEach((fromScope, hop) => {
      const to = hop === 4 ? nodeId : (scopes[hop + 1] as string);
      const data = {
        ...base,
        hop,
        fromScope,
        to,
        toKind: hop === 4 ? 'node' : 'domain',
        policy: 'spread',
        candidates: candidates(8, hop),
      };
      events.push(ev('WorkloadDelegated', data, at + attempt, `c${attempt}h${hop}`));
    });
    const rejection = {
      ...base,
      scope: 'eu-s1',
      reason: 'SCHEDULE.NO_FEASIBLE_NODE',
      detail: 'all filtered',
      candidates: candidates(8, 9),
    };
    events.push(ev('DelegationRejected', rejection, at + attempt, `c${attempt}r`));
    const placed = {
      ...base,
      allocationId,
      generation: 1,
      nodeId,
      domainId: 'eu-s0-rack',
      resources: { cpuMillis: 2000, memoryBytes: 1, accelerators: 0 },
    };
    events.push(ev('AllocationPlaced', placed, at + attempt, `c${attempt}p`));
    const lost = {
      workloadId,
      allocationId,
      nodeId,
      reason: 'node offline',
      lostAt: new Date(at).toISOString(),
    };
    events.push(ev('AllocationLost', lost, at + attempt, `c${attempt}l`));
  }
  await store.append(workloadStream(workloadId), events, 'no_stream');
  return workloadId;
}

function stats(samples: number[]): Record<string, number> {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1]),
  };
}

async function time(runs: number, step: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await step();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples;
}

async function chainBench(store: PostgresEventStore): Promise<Record<string, unknown>> {
  const workloadId = await writeChain(store);
  const stream = workloadStream(workloadId);
  const hops = buildChain(await store.readStream(stream)).decisions.reduce((n, d) => n + d.hops.length, 0);
  await time(50, () => store.readStream(stream)); // warm-up
  const baseline = await time(CHAIN_RUNS, () => store.readStream(stream));
  const json = await time(CHAIN_RUNS, async () => buildChain(await store.readStream(stream)));
  const text = await time(CHAIN_RUNS, async () =>
    renderChainText(buildChain(await store.readStream(stream))),
  );
  const ratio = stats(json).p99 / stats(baseline).p99;
  return {
    hops,
    runs: CHAIN_RUNS,
    baselineReadStreamMs: stats(baseline),
    chainJsonMs: stats(json),
    chainTextMs: stats(text),
    p99RatioToBaseline: Math.round(ratio * 100) / 100,
  };
}

/** Writes the fleet, then workloads (7 events each) and heartbeats (half the log) until `target` events. */
async function writeLog(
  store: PostgresEventStore,
  target: number,
): Promise<{ events: number; seconds: number }> {
  const started = Date.now();
  const setup: AppendRequest[] = [];
  for (const { region, site } of SITES) {
    setup.push({
      streamId: `domain-${region}`,
      events: [
        ev(
          'DomainDefined',
          { domainId: region, parentId: null, region, labels: {}, policy: 'spread', headNodeId: null },
          MONTH_START,
          `d${region}`,
        ),
      ],
      expectedRevision: 'any',
    });
    setup.push({
      streamId: `domain-${site}`,
      events: [
        ev(
          'DomainDefined',
          { domainId: site, parentId: region, region: null, labels: {}, policy: 'spread', headNodeId: null },
          MONTH_START,
          `d${site}`,
        ),
      ],
      expectedRevision: 'any',
    });
  }
  const nodes = Array.from({ length: NODES }, (_, i) => deterministicUuid(`bench-node-${i}`));
  nodes.forEach((nodeId, i) =>
    setup.push({
      streamId: `node-${nodeId}`,
      events: [
        ev('NodeRegistered', registration(nodeId, SITES[i % SITES.length].site, i), MONTH_START, `n${i}`),
      ],
      expectedRevision: 'any',
    }),
  );
  await store.appendMany(setup);
  let written = setup.length;
  const workloads = Math.floor(target / 2 / WORKLOAD_EVENTS);
  for (let w = 0; written < target;) {
    const batch: AppendRequest[] = [];
    for (let k = 0; k < 70 && w < workloads; k++, w++) batch.push(workloadRequest(w, workloads, nodes));
    for (let k = 0; k < 10; k++) batch.push(heartbeatRequest(written + k, target, nodes));
    const outcomes = await store.appendMany(batch);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
    written += batch.reduce((n, r) => n + r.events.length, 0);
    progress('writing the log', Math.min(written, target), target);
  }
  return { events: written, seconds: (Date.now() - started) / 1000 };
}

function workloadRequest(w: number, n: number, nodes: readonly string[]): AppendRequest {
  const workloadId = deterministicUuid(`bench-w${w}`);
  const t = instantOf(w, n);
  const site = SITES[w % SITES.length];
  const nodeId = nodes[w % nodes.length];
  const allocationId = deterministicUuid(`bench-a${w}`);
  const spec = benchSpec(`w${w}`, `ns-${w % 20}`, w % 50 === 0 ? 'us' : undefined);
  const base = { workloadId, instance: 0, attempt: 0 };
  const hop = (h: number, fromScope: string | null, to: string, toKind: string) =>
    ev(
      'WorkloadDelegated',
      { ...base, hop: h, fromScope, to, toKind, policy: 'spread', candidates: candidates(4, h) },
      t,
      `w${w}h${h}`,
    );
  const resources = { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, accelerators: 1 };
  const events = [
    ev('WorkloadSubmitted', { workloadId, spec, idempotencyKey: null }, t, `w${w}s`),
    hop(0, null, site.region, 'domain'),
    hop(1, site.region, site.site, 'domain'),
    hop(2, site.site, nodeId, 'node'),
    ev(
      'AllocationPlaced',
      { ...base, allocationId, generation: 1, nodeId, domainId: site.site, resources },
      t,
      `w${w}p`,
    ),
    ev(
      'AllocationStarted',
      { workloadId, allocationId, nodeId, pid: 1, startedAt: new Date(t).toISOString() },
      t,
      `w${w}st`,
    ),
    ev(
      'AllocationCompleted',
      { workloadId, allocationId, nodeId, exitCode: 0, endedAt: new Date(t + 3_600_000).toISOString() },
      t + 3_600_000,
      `w${w}c`,
    ),
  ];
  return { streamId: workloadStream(workloadId), events, expectedRevision: 'no_stream' };
}

function heartbeatRequest(k: number, n: number, nodes: readonly string[]): AppendRequest {
  const nodeId = nodes[k % nodes.length];
  const t = instantOf(k, n);
  const usage = { cpuUsage: 0.4, memoryUsedBytes: 2 ** 30, diskUsedBytes: 0 };
  const events = Array.from({ length: 50 }, (_, i) =>
    ev(
      'NodeHeartbeatRecorded',
      { nodeId, seq: k * 50 + i, sentAt: new Date(t).toISOString(), usage, runningAllocations: [] },
      t,
      `hb${k}-${i}`,
    ),
  );
  return { streamId: `heartbeat-${nodeId}`, events, expectedRevision: 'any' };
}

async function reportBench(store: PostgresEventStore): Promise<Record<string, unknown>> {
  const written = await writeLog(store, TARGET_EVENTS);
  const period = { fromMs: MONTH_START, toMs: Date.UTC(2026, 10, 1) };
  const t0 = Date.now();
  const scanned = await scanLog(store, () => undefined, {
    filter: { kind: 'eventTypePrefix', prefixes: REPORT_EVENT_TYPES },
  });
  const baselineSeconds = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  const result = await readComplianceReport(store, period, '*', (p) => progress('report', p.read, scanned));
  const csv = reportCsv(result);
  const reportSeconds = (Date.now() - t1) / 1000;
  const again = reportCsv(await readComplianceReport(store, period, '*'));
  return {
    logEvents: written.events,
    writeSeconds: written.seconds,
    writeEventsPerSecond: Math.round(written.events / written.seconds),
    reportEventsRead: scanned,
    baselineScanSeconds: baselineSeconds,
    baselineEventsPerSecond: Math.round(scanned / baselineSeconds),
    reportSeconds,
    reportEventsPerSecond: Math.round(scanned / reportSeconds),
    ratioToBaseline: Math.round((reportSeconds / baselineSeconds) * 100) / 100,
    logEventsPerSecondOfReport: Math.round(written.events / reportSeconds),
    sameBytesTwice: again === csv,
    rows: {
      usage: result.usage.length,
      placements: result.placements.length,
      residencyViolations: result.residencyViolations.length,
    },
  };
}

/** `npm run bench -- audit`: chain replay of a 50-hop workload, then a monthly report over a large log. */
export async function run(): Promise<void> {
  const db = await benchDatabase('audit');
  const store = await PostgresEventStore.connect({ connectionString: db.url });
  try {
    const chain = await chainBench(store);
    console.log(`[bench] chain replay: ${JSON.stringify(chain)}`);
    const compliance = await reportBench(store);
    report('audit', { chain, compliance });
  } finally {
    await store.close();
    await db.stop();
  }
}
