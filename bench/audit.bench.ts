import {
  buildChain,
  readComplianceReport,
  renderChainText,
  reportCsv,
  scanLog,
  REPORT_EVENT_TYPES,
} from '@hcn/audit';
import { PostgresEventStore } from '@hcn/eventstore';
import { deterministicUuid, workloadStream } from '@hcn/contracts';
import { MONTH_START, benchSpec, candidates, ev } from './audit-fixtures';
import { writeMonthLog } from './month-log';
import { benchDatabase, percentile, progress, report } from './support';

const TARGET_EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const CHAIN_RUNS = Number(process.env.BENCH_AUDIT_CHAIN_RUNS ?? 500);

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

async function reportBench(store: PostgresEventStore): Promise<Record<string, unknown>> {
  const written = await writeMonthLog(store, TARGET_EVENTS);
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
