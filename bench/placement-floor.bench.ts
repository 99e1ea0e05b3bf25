import type { NewEvent, Position } from '@hcn/contracts';
import { AppendRequest, PostgresEventStore, decodeEvent, prepareEvent } from '@hcn/eventstore';
import { hcnEventRegistry } from '@hcn/contracts';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { cpuByGroup } from './cpu-breakdown';
import { RecordedEvent, RecordedPlacement, recordPlacements } from './floor-records';
import { benchDatabase, progress, report } from './support';

/**
 * The least PostgreSQL can spend storing placements as the hub records them, against what the store spends. Each
 * placement is the five events the hub and its agent write (the submission and the placement with its compact
 * decision record in one new workload stream, the node's reservation, the namespace's quota hold, the agent's
 * `started` report), recorded from an embedded hub placing real workloads over the placement bench's tree
 * (floor-records.ts) and replayed here with fresh event and stream ids. They are written 100 placements to a
 * call: once through the store's `appendMany` (the hub's path: validation, stored form, revisions, checks, hash
 * chain) and once as one plain multi-row INSERT of the stored JSON into a copy of the events table with the same
 * indexes (the floor). Then the floor's rows are read back once in log order, as one follower would. No read
 * model, no Kafka, no HTTP: every other part of a placement comes on top.
 */
const PLACEMENTS = Number(process.env.BENCH_FLOOR_PLACEMENTS ?? 6000);
const BATCH = 100;
const WRITERS = 2;
const CORES = 2;
/** Issue 18's batched target: 1,000 placements/s leaves 2 ms of CPU per placement on two cores. */
const TARGET_PER_SEC = 1000;
/** The first target (issue 4): 2,000/s, 1 ms per placement. */
const FIRST_TARGET_PER_SEC = 2000;
const SOURCE_NODES = 1000;
const RECORDED = 400;
const EVENTS_PER_PLACEMENT = 5;

/** A recorded event with a fresh id (and the same content), for one more placement. */
function again(recorded: RecordedEvent): RecordedEvent {
  return { event: { ...recorded.event, eventId: randomUUID() }, stored: recorded.stored };
}

/** The events of one placement, per stream: a recorded placement under a fresh workload id and fresh event ids. */
function placementEvents(recorded: RecordedPlacement) {
  return {
    workloadId: randomUUID(),
    nodeId: recorded.nodeId,
    workload: recorded.workload.map(again),
    node: again(recorded.node),
    quota: again(recorded.quota),
    started: again(recorded.started),
  };
}

type Placement = ReturnType<typeof placementEvents>;

/**
 * The hub's path for a batch: the quota's holds in one append, the reservations one request per node, the new
 * workload streams in one appendMany, then the agents' `started` reports in another.
 */
async function storeBatch(store: PostgresEventStore, batch: Placement[]): Promise<void> {
  const byNode = new Map<string, NewEvent[]>();
  for (const p of batch) byNode.set(p.nodeId, [...(byNode.get(p.nodeId) ?? []), p.node.event]);
  const calls: AppendRequest[][] = [
    [{ streamId: 'quota-default', events: batch.map((p) => p.quota.event), expectedRevision: 'any' }],
    [...byNode].map(([nodeId, events]) => ({ streamId: `node-${nodeId}`, events, expectedRevision: 'any' })),
    batch.map((p) => ({
      streamId: `workload-${p.workloadId}`,
      events: p.workload.map((e) => e.event),
      expectedRevision: 'no_stream' as const,
    })),
    batch.map((p) => ({
      streamId: `workload-${p.workloadId}`,
      events: [p.started.event],
      expectedRevision: p.workload.length - 1,
    })),
  ];
  for (const requests of calls) {
    const outcomes = await store.appendMany(requests);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

/**
 * The floor: the same events' stored JSON in one plain INSERT (stream ids and revisions given, nothing validated,
 * checked or chained).
 */
async function rawBatch(pool: Pool, batch: Placement[], run: number): Promise<void> {
  const rows: string[] = [];
  batch.forEach((p, i) => {
    const row = (stream: string, revision: number, { event, stored }: RecordedEvent) =>
      rows.push(
        `{"id":"${event.eventId}","stream":"${stream}","revision":${revision},"type":"${event.type}",` +
          `"data":${stored.data},"meta":${stored.metadata}}`,
      );
    p.workload.forEach((e, r) => row(`workload-${p.workloadId}`, r, e));
    row(`workload-${p.workloadId}`, p.workload.length, p.started);
    row(`node-${p.nodeId}`, run * BATCH + i, p.node);
    row('quota-default', run * BATCH + i, p.quota);
  });
  await pool.query(
    `INSERT INTO raw_events (event_id, stream_id, revision, type, data, metadata)
     SELECT (r->>'id')::uuid, r->>'stream', (r->>'revision')::bigint, r->>'type', r->'data', r->'meta'
     FROM jsonb_array_elements($1::jsonb) AS r`,
    [`[${rows.join(',')}]`],
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
  recorded: RecordedPlacement[],
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
          placementEvents(recorded[(run * BATCH + i) % recorded.length]),
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
    progress('reading back', read, placements * EVENTS_PER_PLACEMENT, 2000);
  }
  return figures(before, started, placements);
}

/**
 * Reads the store's own events back once through a second store, a page of 1,000 at a time as a follower of
 * `$all` does (the store's page query below the transaction horizon, each event decoded and validated).
 */
async function readThroughStore(url: string, placements: number): Promise<PhaseFigures> {
  const reader = await PostgresEventStore.connect({ connectionString: url, poolSize: 1 });
  try {
    const before = cpuByGroup({});
    const started = process.hrtime.bigint();
    let after: Position | undefined;
    for (let read = 0; ;) {
      const page = await reader.readPage(after, undefined, 1000);
      read += page.events.length;
      if (page.exhausted || !page.checkpoint) break;
      after = page.checkpoint;
      progress('reading through a store', read, placements * EVENTS_PER_PLACEMENT, 2000);
    }
    return figures(before, started, placements);
  } finally {
    await reader.close();
  }
}

/**
 * In this process alone, without I/O: CPU per placement to validate and encode its five events for an append
 * (`prepareEvent`: schema, stored form, canonical JSON, content hash) and to decode and validate them from their
 * stored JSON as a reader does (`decodeEvent` after JSON.parse, what the pg driver does for a jsonb column).
 */
function codecCpu(recorded: RecordedPlacement[], rounds = 10) {
  const events = recorded.flatMap((p) => [...p.workload, p.node, p.quota, p.started]);
  const cpuMs = (work: () => void): number => {
    const before = process.cpuUsage();
    for (let round = 0; round < rounds; round++) work();
    const used = process.cpuUsage(before);
    return +((used.user + used.system) / 1000 / (rounds * recorded.length)).toFixed(3);
  };
  cpuMs(() => undefined);
  const encode = cpuMs(() => events.forEach(({ event }) => prepareEvent(hcnEventRegistry, event)));
  const decode = cpuMs(() =>
    events.forEach(({ event, stored }, i) =>
      decodeEvent(hcnEventRegistry, {
        eventId: event.eventId,
        type: event.type,
        streamId: 'bench',
        revision: 0,
        position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
        recordedAt: new Date().toISOString(),
        data: JSON.parse(stored.data),
        metadata: JSON.parse(stored.metadata),
      }),
    ),
  );
  return { rounds, encodeForAppend: encode, decodeOnRead: decode };
}

/** Average JSON bytes (data and metadata, as stored) per event type, and per placement, over the recorded ones. */
function sizes(recorded: RecordedPlacement[]) {
  const totals = new Map<string, { bytes: number; count: number }>();
  let bytes = 0;
  for (const p of recorded) {
    for (const { event, stored } of [...p.workload, p.node, p.quota, p.started]) {
      const size = Buffer.byteLength(stored.data) + Buffer.byteLength(stored.metadata);
      const total = totals.get(event.type) ?? { bytes: 0, count: 0 };
      totals.set(event.type, { bytes: total.bytes + size, count: total.count + 1 });
      bytes += size;
    }
  }
  const eventBytes = Object.fromEntries(
    [...totals].map(([type, t]) => [type, Math.round(t.bytes / t.count)]),
  );
  return { eventBytes, bytesPerPlacement: Math.round(bytes / recorded.length) };
}

/** CPU per placement that `rate` placements/s leave on this machine's cores. */
const budgetAt = (rate: number): number => (CORES * 1000) / rate;

/** `npm run bench -- placement-floor`. */
export async function run(): Promise<void> {
  console.log(`[bench] recording ${RECORDED} placements of an embedded hub over ${SOURCE_NODES} nodes`);
  const recorded = await recordPlacements(SOURCE_NODES, RECORDED);
  const db = await benchDatabase('floor');
  const store = await PostgresEventStore.connect({ connectionString: db.url, poolSize: WRITERS });
  const pool = new Pool({ connectionString: db.url, max: WRITERS });
  try {
    await pool.query('CREATE TABLE raw_events (LIKE hcn_events INCLUDING ALL)');
    await pool.query('ALTER TABLE raw_events SET (toast_tuple_target = 8160)');
    const { eventBytes, bytesPerPlacement } = sizes(recorded);
    const codecCpuMsPerPlacement = codecCpu(recorded);
    console.log(`[bench] codec CPU ms per placement ${JSON.stringify(codecCpuMsPerPlacement)}`);
    await phase('warm-up', recorded, (batch, run) => rawBatch(pool, batch, run + 1_000_000));
    await pool.query('TRUNCATE raw_events');
    const floor = await phase('plain INSERT', recorded, (batch, run) => rawBatch(pool, batch, run));
    const viaStore = await phase('store appendMany', recorded, (batch) => storeBatch(store, batch));
    const floorAgain = await phase('plain INSERT again', recorded, (batch, run) =>
      rawBatch(pool, batch, run + 500_000),
    );
    const read = await readBack(pool, 2 * floor.placements);
    const readValidating = await readThroughStore(db.url, viaStore.placements);
    const writeFloor = Math.min(floor.cpuMsPerPlacement.total, floorAgain.cpuMsPerPlacement.total);
    const floorTotal = +(writeFloor + read.cpuMsPerPlacement.total).toFixed(3);
    const share = (rate: number) => +(floorTotal / budgetAt(rate)).toFixed(2);
    report('placement-floor', {
      placementsPerCall: BATCH,
      writers: WRITERS,
      recordedPlacements: RECORDED,
      eventsPerPlacement: EVENTS_PER_PLACEMENT,
      bytesPerPlacement,
      eventBytes,
      floor,
      viaStore,
      floorAgain,
      readBackOnce: read,
      readThroughStoreOnce: readValidating,
      codecCpuMsPerPlacement,
      ratios: {
        storeToFloorCpu: +(viaStore.cpuMsPerPlacement.total / writeFloor).toFixed(2),
        storeToFloorPostgresCpu: +(
          viaStore.cpuMsPerPlacement.postgres / floor.cpuMsPerPlacement.postgres
        ).toFixed(2),
        validatingToRawReadCpu: +(
          readValidating.cpuMsPerPlacement.total / read.cpuMsPerPlacement.total
        ).toFixed(2),
      },
      budget: {
        cpuMsPerPlacementAt1000PerSecOn2Cores: budgetAt(TARGET_PER_SEC),
        cpuMsPerPlacementAt2000PerSecOn2Cores: budgetAt(FIRST_TARGET_PER_SEC),
        floorCpuMsPerPlacement: floorTotal,
        floorShareOfBudgetAt1000PerSec: share(TARGET_PER_SEC),
        floorShareOfBudgetAt2000PerSec: share(FIRST_TARGET_PER_SEC),
        placementsPerSecIfTheFloorWereAll: Math.round((CORES * 1000) / floorTotal),
      },
    });
  } finally {
    await pool.end();
    await store.close();
    await db.stop();
  }
}
