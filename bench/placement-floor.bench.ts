import { EventRegistry, NewEvent, defineEvent, z } from '@hcn/contracts';
import { AppendRequest, PostgresEventStore } from '@hcn/eventstore';
import type { ClusterSnapshot, DomainView, NodeView, PolicyName } from '@hcn/scheduling';
import { SchedulingIndex, constraintsOf, decide } from '@hcn/scheduling';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { cpuByGroup } from './cpu-breakdown';
import { PLACEMENT_REGIONS, PLACEMENT_SITES } from './placement-tree';
import { benchDatabase, progress, report } from './support';

/**
 * The least PostgreSQL can spend storing placements as this design records them, against what the store spends.
 * Each placement is the ten events the hub and its agent write (the submission, four delegation hops carrying
 * every candidate of a real decision over the placement bench's tree, the placement, the node's reservation, the
 * namespace's quota, the agent's `started` report). They are written 100 placements to a call: once through the
 * store's `appendMany` (the hub's path: revisions, checks, hash chain) and once as one plain multi-row INSERT into
 * a copy of the events table with the same indexes (the floor). Then the floor's rows are read back once in log
 * order, as one follower would. No read model, no Kafka, no HTTP: every other part of a placement comes on top.
 */
const PLACEMENTS = Number(process.env.BENCH_FLOOR_PLACEMENTS ?? 6000);
const BATCH = 100;
const WRITERS = 2;
const CORES = 2;
const TARGET_PER_SEC = 2000;
const REGIONS = PLACEMENT_REGIONS;
const SITES = PLACEMENT_SITES;
const NODES_PER_SITE = 50;
const DECISIONS = 400;
const PLACEMENT_TYPES = [
  'WorkloadSubmitted',
  'WorkloadDelegated',
  'AllocationPlaced',
  'CapacityReserved',
  'QuotaConsumed',
  'AllocationStarted',
] as const;

/** Any JSON object under the placement events' type names: this bench measures storage, not validation. */
const registry = new EventRegistry(
  PLACEMENT_TYPES.map((type) => defineEvent(type, 1, z.record(z.string(), z.unknown()))),
);

function tree(): ClusterSnapshot {
  const domain = (domainId: string, parentId: string | null, policy: PolicyName): DomainView => ({
    domainId,
    parentId,
    region: parentId === 'global' ? domainId : null,
    labels: {},
    policy,
    placements: 0,
  });
  const domains = [
    domain('global', null, 'least-loaded'),
    ...REGIONS.map((r) => domain(r, 'global', 'spread')),
    ...SITES.map((s) => domain(s, s.split('-')[0], 'bin-pack')),
  ];
  // half the nodes full, as in a placement bench run well under way: their verdicts carry a reason and its detail
  const nodes: NodeView[] = SITES.flatMap((domainId) =>
    Array.from({ length: NODES_PER_SITE }, (_, n) => ({
      nodeId: randomUUID(),
      domainId,
      labels: { zone: 'z1' },
      online: true,
      draining: false,
      capacity: { cpuMillis: 8000, memoryBytes: 16 * 2 ** 30, accelerators: 0 },
      allocated: { cpuMillis: n % 2 === 0 ? 8000 : 0, memoryBytes: 0, accelerators: 0 },
    })),
  );
  return { domains, nodes };
}

interface Decided {
  readonly nodeId: string;
  readonly domainId: string;
  readonly hops: ReadonlyArray<Record<string, unknown>>;
}

/** Real decisions (hops with every candidate) over the placement bench's tree, reserving as they go. */
function decisions(): Decided[] {
  const index = SchedulingIndex.fromSnapshot(tree());
  const resources = { cpuMillis: 100, memoryBytes: 64 * 2 ** 20, accelerators: 0 };
  const out: Decided[] = [];
  for (let i = 0; i < DECISIONS; i++) {
    const d = decide(index, {
      workloadId: randomUUID(),
      instance: 0,
      resources,
      constraints: constraintsOf({}),
    });
    if (d.outcome !== 'placed') throw new Error('the floor bench tree ran out of room');
    index.reserve(d.nodeId, resources);
    out.push({
      nodeId: d.nodeId,
      domainId: d.domainPath[d.domainPath.length - 1],
      hops: d.hops.map((h, hop) => ({
        hop,
        fromScope: h.scope,
        to: h.chosen,
        toKind: h.chosenKind,
        policy: h.policy,
        candidates: h.candidates,
      })),
    });
  }
  return out;
}

const metadata = (workloadId: string) => ({
  correlationId: workloadId,
  causationId: randomUUID(),
  actor: { kind: 'user' as const, id: 'bench-admin' },
  occurredAt: new Date().toISOString(),
});

/** The events of one placement, per stream (workload, node, quota; the `started` report comes in a second call). */
function placementEvents(decided: Decided, n: number) {
  const workloadId = randomUUID();
  const allocationId = randomUUID();
  const meta = metadata(workloadId);
  const resources = { cpuMillis: 100, memoryBytes: 67108864, accelerators: 0 };
  const event = (type: string, data: Record<string, unknown>): NewEvent => ({
    eventId: randomUUID(),
    type,
    data,
    metadata: meta,
  });
  const common = { workloadId, instance: 0, attempt: 0 };
  const spec = {
    name: `floor-${n}`,
    namespace: 'default',
    type: 'process',
    command: 'true',
    args: [],
    env: {},
    resources,
    constraints: {
      labels: [],
      domains: { affinity: [], antiAffinity: [] },
      regions: { affinity: [], antiAffinity: [] },
      nodeBlacklist: [],
    },
    replicas: 1,
    priority: 0,
    restartPolicy: { policy: 'never' },
    stopGracePeriodSeconds: 30,
  };
  return {
    workloadId,
    nodeId: decided.nodeId,
    workload: [
      event('WorkloadSubmitted', { workloadId, spec, idempotencyKey: null }),
      ...decided.hops.map((h) => event('WorkloadDelegated', { ...common, ...h })),
      event('AllocationPlaced', {
        ...common,
        allocationId,
        generation: 1,
        nodeId: decided.nodeId,
        domainId: decided.domainId,
        resources,
      }),
    ],
    node: event('CapacityReserved', {
      nodeId: decided.nodeId,
      allocationId,
      workloadId,
      resources,
      devices: [],
    }),
    quota: event('QuotaConsumed', { namespace: 'default', workloadId, resources, reason: 'admitted' }),
    started: event('AllocationStarted', {
      ...common,
      allocationId,
      nodeId: decided.nodeId,
      pid: 4242 + n,
      startedAt: new Date().toISOString(),
    }),
  };
}

type Placement = ReturnType<typeof placementEvents>;

/**
 * The hub's path for a batch: the quota's holds in one append, the reservations one request per node, the new
 * workload streams in one appendMany, then the agents' `started` reports in another.
 */
async function storeBatch(store: PostgresEventStore, batch: Placement[]): Promise<void> {
  const byNode = new Map<string, NewEvent[]>();
  for (const p of batch) byNode.set(p.nodeId, [...(byNode.get(p.nodeId) ?? []), p.node]);
  const calls: AppendRequest[][] = [
    [{ streamId: 'quota-default', events: batch.map((p) => p.quota), expectedRevision: 'any' }],
    [...byNode].map(([nodeId, events]) => ({ streamId: `node-${nodeId}`, events, expectedRevision: 'any' })),
    batch.map((p) => ({
      streamId: `workload-${p.workloadId}`,
      events: p.workload,
      expectedRevision: 'no_stream' as const,
    })),
    batch.map((p) => ({
      streamId: `workload-${p.workloadId}`,
      events: [p.started],
      expectedRevision: p.workload.length - 1,
    })),
  ];
  for (const requests of calls) {
    const outcomes = await store.appendMany(requests);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

/** The floor: the same rows in one plain INSERT (stream ids and revisions given, nothing checked or chained). */
async function rawBatch(pool: Pool, batch: Placement[], run: number): Promise<void> {
  const rows: unknown[] = [];
  batch.forEach((p, i) => {
    const row = (stream: string, revision: number, e: NewEvent) =>
      rows.push({ id: e.eventId, stream, revision, type: e.type, data: e.data, meta: e.metadata });
    p.workload.forEach((e, r) => row(`workload-${p.workloadId}`, r, e));
    row(`workload-${p.workloadId}`, p.workload.length, p.started);
    row(`node-${p.nodeId}`, run * BATCH + i, p.node);
    row('quota-default', run * BATCH + i, p.quota);
  });
  await pool.query(
    `INSERT INTO raw_events (event_id, stream_id, revision, type, data, metadata)
     SELECT (r->>'id')::uuid, r->>'stream', (r->>'revision')::bigint, r->>'type', r->'data', r->'meta'
     FROM jsonb_array_elements($1::jsonb) AS r`,
    [JSON.stringify(rows)],
  );
}

interface PhaseFigures {
  placements: number;
  seconds: number;
  placementsPerSec: number;
  cpuMsPerPlacement: { postgres: number; client: number; total: number };
}

/** Runs `write` over every batch with two writers; CPU of PostgreSQL and of this process per placement. */
async function phase(
  label: string,
  decided: Decided[],
  write: (batch: Placement[], run: number) => Promise<void>,
): Promise<PhaseFigures> {
  const batches = Math.ceil(PLACEMENTS / BATCH);
  let next = 0;
  let done = 0;
  const before = cpuByGroup({});
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let run = next++; run < batches; run = next++) {
        const batch = Array.from({ length: BATCH }, (_, i) =>
          placementEvents(decided[(run * BATCH + i) % decided.length], run * BATCH + i),
        );
        await write(batch, run);
        progress(label, ++done, batches);
      }
    }),
  );
  return figures(before, started, batches * BATCH);
}

function figures(before: Record<string, number>, started: bigint, placements: number): PhaseFigures {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = cpuByGroup({});
  const per = (group: string) =>
    +((((after[group] ?? 0) - (before[group] ?? 0)) * 1000) / placements).toFixed(3);
  const postgres = per('postgres');
  const client = per('loadGenerator');
  return {
    placements,
    seconds: +seconds.toFixed(2),
    placementsPerSec: Math.round(placements / seconds),
    cpuMsPerPlacement: { postgres, client, total: +(postgres + client).toFixed(3) },
  };
}

/** Reads the floor table back once in log order, 1,000 rows a page, as a follower reads `$all`. */
async function readBack(pool: Pool, placements: number): Promise<PhaseFigures> {
  const before = cpuByGroup({});
  const started = process.hrtime.bigint();
  let last = ['0', '0'];
  for (let read = 0; ;) {
    const { rows } = await pool.query<{ txid: string; seq: string }>(
      `SELECT txid::text AS txid, seq::text AS seq, event_id, stream_id, revision, type, data, metadata, recorded_at
       FROM raw_events WHERE (txid, seq) > ($1::text::xid8, $2::bigint) ORDER BY txid, seq LIMIT 1000`,
      last,
    );
    if (rows.length === 0) break;
    read += rows.length;
    last = [rows[rows.length - 1].txid, rows[rows.length - 1].seq];
    progress('reading back', read, placements * 10, 2000);
  }
  return figures(before, started, placements);
}

/** Average JSON bytes (data and metadata) per event type, and per placement, over every decided placement. */
function sizes(decided: Decided[]) {
  const totals = new Map<string, { bytes: number; count: number }>();
  let bytes = 0;
  decided.forEach((d, n) => {
    const p = placementEvents(d, n);
    for (const e of [...p.workload, p.node, p.quota, p.started]) {
      const size = JSON.stringify(e.data).length + JSON.stringify(e.metadata).length;
      const total = totals.get(e.type) ?? { bytes: 0, count: 0 };
      totals.set(e.type, { bytes: total.bytes + size, count: total.count + 1 });
      bytes += size;
    }
  });
  const eventBytes = Object.fromEntries(
    [...totals].map(([type, t]) => [type, Math.round(t.bytes / t.count)]),
  );
  return { eventBytes, bytesPerPlacement: Math.round(bytes / decided.length) };
}

/** `npm run bench -- placement-floor`. */
export async function run(): Promise<void> {
  const db = await benchDatabase('floor');
  const store = await PostgresEventStore.connect({ connectionString: db.url, registry, poolSize: WRITERS });
  const pool = new Pool({ connectionString: db.url, max: WRITERS });
  try {
    await pool.query('CREATE TABLE raw_events (LIKE hcn_events INCLUDING ALL)');
    await pool.query('ALTER TABLE raw_events SET (toast_tuple_target = 8160)');
    console.log(`[bench] deciding ${DECISIONS} placements over ${SITES.length * NODES_PER_SITE} nodes`);
    const decided = decisions();
    const { eventBytes, bytesPerPlacement } = sizes(decided);
    await phase('warm-up', decided, (batch, run) => rawBatch(pool, batch, run + 1_000_000));
    await pool.query('TRUNCATE raw_events');
    const floor = await phase('plain INSERT', decided, (batch, run) => rawBatch(pool, batch, run));
    const viaStore = await phase('store appendMany', decided, (batch) => storeBatch(store, batch));
    const floorAgain = await phase('plain INSERT again', decided, (batch, run) =>
      rawBatch(pool, batch, run + 500_000),
    );
    const read = await readBack(pool, 2 * floor.placements);
    const writeFloor = Math.min(floor.cpuMsPerPlacement.total, floorAgain.cpuMsPerPlacement.total);
    const floorTotal = +(writeFloor + read.cpuMsPerPlacement.total).toFixed(3);
    report('placement-floor', {
      placementsPerCall: BATCH,
      writers: WRITERS,
      eventsPerPlacement: 10,
      bytesPerPlacement,
      eventBytes,
      floor,
      viaStore,
      floorAgain,
      readBackOnce: read,
      ratios: {
        storeToFloorCpu: +(viaStore.cpuMsPerPlacement.total / writeFloor).toFixed(2),
        storeToFloorPostgresCpu: +(
          viaStore.cpuMsPerPlacement.postgres / floor.cpuMsPerPlacement.postgres
        ).toFixed(2),
      },
      budget: {
        cpuMsPerPlacementAt2000PerSecOn2Cores: (CORES * 1000) / TARGET_PER_SEC,
        floorCpuMsPerPlacement: floorTotal,
        floorShareOfBudget: +(floorTotal / ((CORES * 1000) / TARGET_PER_SEC)).toFixed(2),
        placementsPerSecIfTheFloorWereAll: Math.round((CORES * 1000) / floorTotal),
      },
    });
  } finally {
    await pool.end();
    await store.close();
    await db.stop();
  }
}
