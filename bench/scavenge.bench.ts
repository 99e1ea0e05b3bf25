import { PostgresEventStore } from '@hcn/eventstore';
import { Pool } from 'pg';
import { testEventRegistry, thing } from '../libs/eventstore/src/testing/test-events';
import { benchDatabase, progress, report } from './support';

const STREAMS = Number(process.env.BENCH_SCAVENGE_STREAMS ?? 1000);
const EVENTS_PER_STREAM = Number(process.env.BENCH_SCAVENGE_EVENTS ?? 300);
/** Newest events of each stream still inside its retention. */
const RETAINED = 50;

/**
 * Scavenge of the PostgreSQL store: heartbeat-like streams (one event per stream per round through the set-based
 * appendMany) with a one-hour maxAge, all but the newest RETAINED events of each backdated by two hours; then one
 * scavenge pass. Baseline: the same rows deleted by one plain `DELETE ... WHERE recorded_at < ...` from a copy of the
 * table (same rows, only the (stream, revision) index), in the same run.
 */
export async function run(): Promise<void> {
  const db = await benchDatabase('scavenge');
  const store = await PostgresEventStore.connect({ connectionString: db.url, registry: testEventRegistry });
  const pool = new Pool({ connectionString: db.url, max: 2 });
  try {
    const streams = Array.from({ length: STREAMS }, (_, s) => `heartbeat-${s}`);
    for (const stream of streams) await store.setStreamMetadata(stream, { maxAge: 3600 });
    for (let round = 0; round < EVENTS_PER_STREAM; round++) {
      const requests = streams.map((streamId) => ({
        streamId,
        events: [thing(round)],
        expectedRevision: 'any' as const,
      }));
      await store.appendMany(requests);
      if (round % 30 === 0) progress('writing', round, EVENTS_PER_STREAM);
    }
    progress('writing', EVENTS_PER_STREAM, EVENTS_PER_STREAM);
    await pool.query(`UPDATE hcn_events SET recorded_at = now() - interval '2 hours' WHERE revision < $1`, [
      EVENTS_PER_STREAM - RETAINED,
    ]);
    await pool.query('CREATE TABLE scavenge_copy AS SELECT * FROM hcn_events');
    await pool.query('CREATE INDEX ON scavenge_copy (stream_id, revision)');
    await pool.query('VACUUM ANALYZE hcn_events');
    await pool.query('VACUUM ANALYZE scavenge_copy');
    const baselineStart = process.hrtime.bigint();
    const baseline = await pool.query(
      `DELETE FROM scavenge_copy WHERE recorded_at < now() - interval '1 hour'`,
    );
    const baselineMs = Number(process.hrtime.bigint() - baselineStart) / 1e6;
    const start = process.hrtime.bigint();
    const result = await store.scavenge((done, total) => progress('scavenging', done.streams, total));
    const scavengeMs = Number(process.hrtime.bigint() - start) / 1e6;
    const left = await pool.query('SELECT count(*)::int AS n FROM hcn_events');
    report('scavenge', {
      streams: STREAMS,
      eventsWritten: STREAMS * EVENTS_PER_STREAM,
      baseline: { deleted: baseline.rowCount, ms: Math.round(baselineMs) },
      scavenge: { ...result, ms: Math.round(scavengeMs), left: left.rows[0].n },
      eventsPerSecond: Math.round(result.deleted / (scavengeMs / 1000)),
      ratioToBaseline: +(scavengeMs / baselineMs).toFixed(2),
    });
  } finally {
    await pool.end();
    await store.close();
    await db.stop();
  }
}
