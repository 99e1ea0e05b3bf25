import type { NewEvent } from '@hcn/contracts';
import type { PostgresEventStore } from '@hcn/eventstore';
import { Pool } from 'pg';
import {
  BENCH_ADMIN_TOKEN,
  BENCH_JOIN_TOKEN,
  startEmbeddedBenchHub,
  submitInBatches,
} from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { PlacementAcker } from './placement-acker';
import { PLACEMENT_SITES, definePlacementTree } from './placement-tree';
import { progress } from './support';

/** One event of a recorded placement: its full content (what an append takes) and its stored JSON (a row's). */
export interface RecordedEvent {
  readonly event: NewEvent;
  /** `data` and `metadata` exactly as the store wrote them (stored form: defaults and derivable fields left out). */
  readonly stored: { readonly data: string; readonly metadata: string };
}

/** The events one placement writes, by stream, as the hub and its agent wrote them. */
export interface RecordedPlacement {
  /** The node it was placed on. */
  readonly nodeId: string;
  /** WorkloadSubmitted and AllocationPlaced (with the decision record), one append creating the stream. */
  readonly workload: RecordedEvent[];
  /** The agent's `started` report, appended to the workload stream later. */
  readonly started: RecordedEvent;
  /** CapacityReserved on the chosen node's stream. */
  readonly node: RecordedEvent;
  /** QuotaConsumed on the namespace's quota stream. */
  readonly quota: RecordedEvent;
}

/**
 * Placements as the hub records them today: an embedded hub with `nodes` simulated nodes over the placement
 * bench's tree places `count` workloads (batches of 100) and the simulated agents report them started; then each
 * placement's five events are read back from the store, in full and as stored. Nothing is made up, so the floor is
 * measured on the record the hub writes (its sizes, its decision records, its stored forms).
 */
export async function recordPlacements(nodes: number, count: number): Promise<RecordedPlacement[]> {
  const embedded = await startEmbeddedBenchHub('floor_source');
  const { database, hub, bus, store } = embedded;
  const pool = new Pool({ connectionString: database.url, max: 1 });
  const fleet = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: BENCH_JOIN_TOKEN,
    bus,
    domains: PLACEMENT_SITES,
  });
  const acker = new PlacementAcker(bus, fleet);
  try {
    await definePlacementTree(hub.url, BENCH_ADMIN_TOKEN);
    await fleet.grow(nodes, 16, (done) => progress('registering nodes', done, nodes));
    await acker.start(PLACEMENT_SITES);
    const ids = await submitInBatches(hub.url, count, 'floor');
    await allStarted(pool, ids.length);
    return await Promise.all(ids.map((id) => recorded(store, pool, id)));
  } finally {
    await acker.stop();
    await pool.end();
    await embedded.close();
  }
}

/** Waits (at most 60 s) until the agents' `started` reports of `count` workloads are stored. */
async function allStarted(pool: Pool, count: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const { rows } = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM hcn_events WHERE type = 'AllocationStarted'",
    );
    if (Number(rows[0].n) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the simulated agents did not report ${count} placements started within 60 s`);
}

/** One workload's placement: its stream's events, its reservation and its quota hold, full and as stored. */
async function recorded(
  store: PostgresEventStore,
  pool: Pool,
  workloadId: string,
): Promise<RecordedPlacement> {
  const { rows } = await pool.query<{
    stream_id: string;
    revision: number;
    type: string;
    data: string;
    metadata: string;
  }>(
    `SELECT stream_id, revision::int AS revision, type, data::text AS data, metadata::text AS metadata
     FROM hcn_events
     WHERE (stream_id = $1 AND type IN ('WorkloadSubmitted', 'AllocationPlaced', 'AllocationStarted'))
        OR (type IN ('CapacityReserved', 'QuotaConsumed') AND data->>'workloadId' = $2)`,
    [`workload-${workloadId}`, workloadId],
  );
  const rowOf = (type: string) => {
    const row = rows.find((r) => r.type === type);
    if (!row) throw new Error(`workload ${workloadId} has no ${type}`);
    return row;
  };
  /** The stored row of `type` and the same event as the store reads it (validated, defaults filled back). */
  const full = async (type: string): Promise<RecordedEvent> => {
    const row = rowOf(type);
    const [read] = await store.readStream(row.stream_id, { fromRevision: row.revision, maxCount: 1 });
    const { prevHash: _prev, hash: _hash, ...metadata } = read.metadata;
    const event: NewEvent = { eventId: read.eventId, type, data: read.data, metadata };
    return { event, stored: { data: row.data, metadata: row.metadata } };
  };
  return {
    nodeId: rowOf('CapacityReserved').stream_id.slice('node-'.length),
    workload: [await full('WorkloadSubmitted'), await full('AllocationPlaced')],
    started: await full('AllocationStarted'),
    node: await full('CapacityReserved'),
    quota: await full('QuotaConsumed'),
  };
}
