import type { Position } from '@hcn/contracts';
import type { EventFilter } from '../port';
import type { QueryFn, StoredRow } from './raw-read';

/** The last sequence value; a checkpoint at (horizon - 1, MAX_SEQ) covers every row of older transactions. */
const MAX_SEQ = 9_223_372_036_854_775_807n;

/** The columns of an event row as `$all` pages and stream reads select them. */
export const EVENT_COLUMNS =
  'e.seq::text AS seq, e.txid::text AS txid, e.event_id, e.stream_id, e.revision::int AS revision, e.type, e.data, e.metadata, e.recorded_at, ' +
  "encode(e.prev_hash, 'hex') AS prev_hash, encode(e.hash, 'hex') AS hash";

/**
 * What a page of `$all` returns: the events whose stream id starts with one of `streamPrefixes` or whose type
 * starts with one of `typePrefixes` (a port filter is one of the two lists; the shared tail reads their union).
 */
export interface Selection {
  readonly streamPrefixes: readonly string[];
  readonly typePrefixes: readonly string[];
}

/** One page of `$all` as stored rows, before validation. */
export interface RawAllPage {
  readonly rows: StoredRow[];
  /** Everything up to here was scanned (also rows not selected); undefined when nothing moved. */
  readonly checkpoint?: Position;
  readonly exhausted: boolean;
  /** The transaction horizon the page was read below. */
  readonly horizon: bigint;
  /**
   * Committed events lie at or above the horizon (an older transaction, of any database of the server, is still
   * open): they become readable when it ends, which no NOTIFY announces, so a follower at the end polls again soon.
   */
  readonly heldBack: boolean;
}

/** A port filter as a selection; undefined (every event) for no filter. */
export function selectionOf(filter: EventFilter | undefined): Selection | undefined {
  if (!filter) return undefined;
  return filter.kind === 'streamPrefix'
    ? { streamPrefixes: filter.prefixes, typePrefixes: [] }
    : { streamPrefixes: [], typePrefixes: filter.prefixes };
}

/**
 * One page of `$all` below the transaction horizon: scans at most `limit` rows in log order (a search window,
 * like EventStoreDB's), returns the selected ones and a checkpoint at the last row scanned, in one round trip (a
 * filtered follower of a heartbeat-heavy log gets no row per heartbeat).
 */
export async function readAllPage(
  query: QueryFn,
  after: Position | undefined,
  selection: Selection | undefined,
  limit: number,
): Promise<RawAllPage> {
  const params: unknown[] = [String(after?.commit ?? 0n), String(after?.prepare ?? 0n), limit];
  let match = "e.type NOT LIKE '$%' AND e.stream_id NOT LIKE '$%'";
  if (selection) {
    params.push(selection.streamPrefixes.map(likePrefix), selection.typePrefixes.map(likePrefix));
    match += ' AND (e.stream_id LIKE ANY ($4::text[]) OR e.type LIKE ANY ($5::text[]))';
  }
  const result = await query<
    StoredRow & {
      horizon: string;
      held_back: boolean;
      last_txid: string | null;
      last_seq: string | null;
      scanned: string | null;
    }
  >(
    `WITH h AS (
       SELECT s.x, EXISTS (SELECT 1 FROM hcn_events l WHERE l.txid >= s.x) AS held_back
       FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x) s
     ),
     w AS MATERIALIZED (
       SELECT e.*, (${match}) AS matches FROM hcn_events e, h
       WHERE (e.txid, e.seq) > ($1::text::xid8, $2::bigint) AND e.txid < h.x
       ORDER BY e.txid, e.seq LIMIT $3
     )
     SELECT h.x::text AS horizon, h.held_back, t.last_txid, t.last_seq, t.scanned, m.* FROM h
     LEFT JOIN (
       SELECT txid::text AS last_txid, seq::text AS last_seq, count(*) OVER () AS scanned FROM w
       ORDER BY txid DESC, seq DESC LIMIT 1
     ) t ON true
     LEFT JOIN LATERAL (
       SELECT ${EVENT_COLUMNS}, e.txid AS sort_txid, e.seq AS sort_seq FROM w e WHERE e.matches
     ) m ON true
     ORDER BY m.sort_txid, m.sort_seq`,
    params,
  );
  const first = result[0];
  const horizon = BigInt(first.horizon);
  const rows = result.filter((row) => row.event_id !== null);
  const exhausted = Number(first.scanned ?? 0) < limit;
  let checkpoint: Position | undefined =
    first.last_txid !== null && first.last_seq !== null
      ? { commit: BigInt(first.last_txid), prepare: BigInt(first.last_seq) }
      : undefined;
  if (exhausted && (!after || horizon - 1n > (checkpoint?.commit ?? after.commit))) {
    checkpoint = { commit: horizon - 1n, prepare: MAX_SEQ };
  }
  return { rows, exhausted, checkpoint, horizon, heldBack: first.held_back };
}

function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
