import type { Pool } from 'pg';

/** Streams with retention handled per statement. */
const STREAMS_PER_STATEMENT = 200;

/** What one scavenge pass did. */
export interface ScavengeResult {
  /** Streams with retention metadata looked at. */
  readonly streams: number;
  /** Stored events deleted. */
  readonly deleted: number;
}

/**
 * PostgreSQL's counterpart of EventStoreDB's scavenge: deletes the stored events that retention already hides from
 * reads (older than their stream's `maxAge`, or beyond its newest `maxCount`), so a heartbeat-heavy log stops
 * growing. Per stream it deletes every revision before the first one still retained (found walking the stream's
 * (stream, revision) index from its oldest row), so a stream's retained events stay one unbroken run; the hash
 * chain verifier starts such a stream at its first retained event. Streams go `STREAMS_PER_STATEMENT` at a time,
 * each batch its own transaction followed by a rest as long as it took; `onProgress` hears after each.
 */
export async function scavengeExpired(
  pool: Pool,
  onProgress?: (done: ScavengeResult, total: number) => void,
): Promise<ScavengeResult> {
  const { rows } = await pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM hcn_streams WHERE max_age_s IS NOT NULL OR max_count IS NOT NULL ORDER BY stream_id`,
  );
  let deleted = 0;
  for (let i = 0; i < rows.length; i += STREAMS_PER_STATEMENT) {
    const started = Date.now();
    const streams = rows.slice(i, i + STREAMS_PER_STATEMENT).map((r) => r.stream_id);
    const result = await pool.query(
      `WITH keep AS MATERIALIZED (
         SELECT s.stream_id, GREATEST(
           CASE WHEN s.max_count IS NULL THEN 0 ELSE s.revision - s.max_count + 1 END,
           CASE WHEN s.max_age_s IS NULL THEN 0 ELSE coalesce((
             SELECT e.revision FROM hcn_events e
             WHERE e.stream_id = s.stream_id AND e.recorded_at >= now() - make_interval(secs => s.max_age_s)
             ORDER BY e.revision LIMIT 1), s.revision + 1) END) AS first_kept
         FROM hcn_streams s WHERE s.stream_id = ANY($1::text[])
       )
       DELETE FROM hcn_events e USING keep k WHERE e.stream_id = k.stream_id AND e.revision < k.first_kept`,
      [streams],
    );
    deleted += result.rowCount ?? 0;
    onProgress?.({ streams: Math.min(i + STREAMS_PER_STATEMENT, rows.length), deleted }, rows.length);
    // as long again at rest: a pass takes at most about half of a core from the appends it runs beside
    if (i + STREAMS_PER_STATEMENT < rows.length)
      await new Promise((r) => setTimeout(r, Date.now() - started));
  }
  return { streams: rows.length, deleted };
}
