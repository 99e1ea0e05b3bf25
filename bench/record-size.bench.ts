import { writeFileSync } from 'node:fs';
import { Pool } from 'pg';
import {
  BENCH_ADMIN_TOKEN,
  BENCH_JOIN_TOKEN,
  startEmbeddedBenchHub,
  submitInBatches,
} from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { PLACEMENT_SITES, definePlacementTree } from './placement-tree';
import { progress, report } from './support';

const NODES = Number(process.env.BENCH_RECORD_NODES ?? 1000);
const WORKLOADS = Number(process.env.BENCH_RECORD_WORKLOADS ?? 500);
/** Bytes over 2.5 kB per placement miss the target. */
const TARGET_BYTES = 2500;

/** Events appended after `afterSeq`: count, JSON bytes (data + metadata) and stored bytes, by type. */
async function eventSizes(pool: Pool, afterSeq: string) {
  const { rows } = await pool.query<{ type: string; n: string; json: string; stored: string }>(
    `SELECT type, count(*) AS n,
            sum(octet_length(data::text) + octet_length(metadata::text)) AS json,
            sum(pg_column_size(data) + pg_column_size(metadata)) AS stored
     FROM hcn_events WHERE seq > $1::bigint GROUP BY type ORDER BY type`,
    [afterSeq],
  );
  return rows.map((r) => ({ type: r.type, events: +r.n, jsonBytes: +r.json, storedBytes: +r.stored }));
}

/** The decision basis of each AllocationPlaced appended after `afterSeq`, as stored (where the variable bytes go). */
async function bases(pool: Pool, afterSeq: string): Promise<string[]> {
  const { rows } = await pool.query<{ basis: string }>(
    `SELECT (data->'decision'->'basis')::text AS basis FROM hcn_events
     WHERE seq > $1::bigint AND type = 'AllocationPlaced' ORDER BY seq`,
    [afterSeq],
  );
  return rows.map((r) => r.basis ?? '');
}

/** One event of each type appended after `afterSeq`, as stored (data and metadata): where the bytes go. */
async function examples(pool: Pool, afterSeq: string) {
  const { rows } = await pool.query<{ type: string; data: unknown; metadata: unknown }>(
    `SELECT DISTINCT ON (type) type, data, metadata FROM hcn_events
     WHERE seq > $1::bigint ORDER BY type, seq DESC`,
    [afterSeq],
  );
  return Object.fromEntries(rows.map((r) => [r.type, { data: r.data, metadata: r.metadata }]));
}

/**
 * `npm run bench -- record-size`: what one placement stores. An embedded hub with NODES registered simulated nodes
 * over the placement bench's tree places WORKLOADS single-instance workloads (batches of 100); the events appended
 * by those submissions are measured per type, and per placement (JSON text of data and metadata, and PostgreSQL's
 * stored size after compression). Deterministic for a given code: compare commits, not runs.
 */
export async function run(): Promise<void> {
  const embedded = await startEmbeddedBenchHub('record');
  const { database, hub, bus } = embedded;
  const pool = new Pool({ connectionString: database.url, max: 1 });
  try {
    await definePlacementTree(hub.url, BENCH_ADMIN_TOKEN);
    const fleet = new FleetSimulator({
      hubUrl: hub.url,
      joinToken: BENCH_JOIN_TOKEN,
      bus,
      domains: PLACEMENT_SITES,
    });
    await fleet.grow(NODES, 16, (done) => progress('registering nodes', done, NODES));
    const { rows } = await pool.query<{ seq: string }>(
      'SELECT coalesce(max(seq), 0)::text AS seq FROM hcn_events',
    );
    await submitInBatches(hub.url, WORKLOADS, 'record');
    const byType = await eventSizes(pool, rows[0].seq);
    const basisTexts = await bases(pool, rows[0].seq);
    if (process.env.BENCH_RECORD_BASES) writeFileSync(process.env.BENCH_RECORD_BASES, basisTexts.join('\n'));
    const placements = byType.find((t) => t.type === 'AllocationPlaced')?.events ?? 0;
    const sum = (key: 'events' | 'jsonBytes' | 'storedBytes') => byType.reduce((s, t) => s + t[key], 0);
    const perPlacement = (n: number) => +(n / Math.max(1, placements)).toFixed(1);
    report('record-size', {
      nodes: NODES,
      workloads: WORKLOADS,
      placements,
      eventsPerPlacement: perPlacement(sum('events')),
      jsonBytesPerPlacement: perPlacement(sum('jsonBytes')),
      storedBytesPerPlacement: perPlacement(sum('storedBytes')),
      byType: byType.map((t) => ({
        ...t,
        jsonBytesPerEvent: Math.round(t.jsonBytes / t.events),
        perPlacement: perPlacement(t.events),
      })),
      basisBytesPerPlacement: perPlacement(basisTexts.reduce((n, b) => n + Buffer.byteLength(b), 0)),
      examples: await examples(pool, rows[0].seq),
      target: {
        jsonBytesPerPlacement: TARGET_BYTES,
        met: sum('jsonBytes') / Math.max(1, placements) <= TARGET_BYTES,
      },
    });
  } finally {
    await pool.end();
    await embedded.close();
  }
}
