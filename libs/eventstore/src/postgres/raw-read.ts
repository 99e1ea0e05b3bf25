import type { RawEvent } from '../codec';
import type { RawPage, ReadRawOptions } from '../port';

/** Runs one SQL query (the store's pool, errors translated). */
export type QueryFn = <R>(sql: string, params: unknown[]) => Promise<R[]>;

const RETAINED = `(e.type NOT LIKE '$%' AND e.stream_id NOT LIKE '$%'
  AND (s.max_count IS NULL OR e.revision > s.revision - s.max_count)
  AND (s.max_age_s IS NULL OR e.recorded_at >= now() - make_interval(secs => s.max_age_s)))`;

const COLUMNS = `e.seq::text AS seq, e.txid::text AS txid, ${RETAINED} AS retained,
  e.event_id, e.stream_id, e.revision::int AS revision, e.type, e.recorded_at,
  encode(e.prev_hash, 'hex') AS prev_hash, encode(e.hash, 'hex') AS hash,
  CASE WHEN ${RETAINED} THEN e.data END AS data, CASE WHEN ${RETAINED} THEN e.metadata END AS metadata`;

/** `$all` below the transaction horizon (as readAll), so a late commit is never skipped between pages. */
const ALL_SQL = `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x)
  SELECT ${COLUMNS} FROM (
    SELECT * FROM hcn_events, h WHERE (txid, seq) > ($1::text::xid8, $2::bigint) AND txid < h.x
    ORDER BY txid, seq LIMIT $3
  ) e LEFT JOIN hcn_streams s ON s.stream_id = e.stream_id
  ORDER BY e.txid, e.seq`;

/** One stream by revision (its revisions follow positions, see migration 4); uncommitted rows hold its lock. */
const STREAM_SQL = `SELECT ${COLUMNS} FROM hcn_events e JOIN hcn_streams s ON s.stream_id = e.stream_id
  WHERE e.stream_id = $4 AND (e.txid, e.seq) > ($1::text::xid8, $2::bigint)
    AND e.revision > coalesce((SELECT a.revision FROM hcn_events a WHERE a.txid = $1::text::xid8 AND a.seq = $2::bigint), -1)
  ORDER BY e.revision LIMIT $3`;

/** The columns of a stored event as this adapter's reads select them. */
export interface StoredRow {
  seq: string;
  txid: string;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  recorded_at: Date;
  data: unknown;
  metadata: unknown;
  prev_hash: string | null;
  hash: string | null;
}

interface RawRow extends StoredRow {
  retained: boolean;
}

/** The PostgreSQL adapter's `readRaw`: stored rows as they are, with retention applied as reads apply it. */
export async function readRawPage(query: QueryFn, options: ReadRawOptions): Promise<RawPage> {
  const params: unknown[] = [
    String(options.after?.commit ?? 0n),
    String(options.after?.prepare ?? 0n),
    options.maxCount,
  ];
  if (options.streamId !== undefined) params.push(options.streamId);
  const rows = await query<RawRow>(options.streamId !== undefined ? STREAM_SQL : ALL_SQL, params);
  const last = rows[rows.length - 1];
  return {
    events: rows.filter((row) => row.retained).map(toRawEvent),
    checkpoint: last ? { commit: BigInt(last.txid), prepare: BigInt(last.seq) } : options.after,
    exhausted: rows.length < options.maxCount,
  };
}

function toRawEvent(row: RawRow): RawEvent {
  return storedEvent(row, withStoredLinks(row.metadata, row.prev_hash, row.hash));
}

/** A stored row as an event envelope (position from its transaction id and sequence) with the given metadata. */
export function storedEvent(row: StoredRow, metadata: unknown): RawEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    streamId: row.stream_id,
    revision: row.revision,
    position: { commit: BigInt(row.txid), prepare: BigInt(row.seq) },
    recordedAt: row.recorded_at.toISOString(),
    data: row.data,
    metadata,
  };
}

/** The metadata of a stored row with its chain links (columns in this adapter) as `prevHash` and `hash`. */
export function withStoredLinks(metadata: unknown, prevHash: string | null, hash: string | null): unknown {
  if (prevHash === null && hash === null) return metadata;
  const base = metadata && typeof metadata === 'object' ? metadata : {};
  return { ...base, ...(prevHash !== null ? { prevHash } : {}), ...(hash !== null ? { hash } : {}) };
}
