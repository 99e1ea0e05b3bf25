/**
 * Event-store migration 8: `hcn_append_set`, appendMany over distinct streams in a fixed number of statements
 * instead of one `hcn_append` (six statements) per stream. A scheduling batch appends hundreds of streams at once
 * (new workload streams, node reservations, `started` reports with exact revisions); the per-stream loop was the
 * largest statement in PostgreSQL's account of a batched placement run. Same rules as `hcn_append`: stream rows
 * are created or locked in one pass in stream order (batches cannot deadlock), a stream last written by a younger transaction refuses
 * the call (HC003, retried afresh), every expectation is checked under the locks (HC001 refuses the whole call,
 * and the caller then appends request by request to give each its own outcome), events get consecutive
 * revisions and their chain links, and each stream row keeps its last link. Streams must be distinct (HC004).
 */
export const APPEND_SET_MIGRATION = `
  CREATE FUNCTION hcn_append_set(p_requests jsonb)
  RETURNS TABLE (out_index int, out_revision bigint, out_txid xid8, out_seq bigint)
  LANGUAGE plpgsql AS $fn$
  DECLARE
    v_names text[];
    v_stale bigint;
    v_wrong bigint;
  BEGIN
    SELECT array_agg(x->>'stream' ORDER BY x->>'stream') INTO v_names FROM jsonb_array_elements(p_requests) x;
    IF cardinality(v_names) <> (SELECT count(DISTINCT n) FROM unnest(v_names) n) THEN
      RAISE EXCEPTION USING ERRCODE = 'HC004', MESSAGE = 'hcn_append_set takes each stream once';
    END IF;
    -- one pass in stream order creates or locks each stream row (a no-op update takes the row lock), as the
    -- per-stream loop does, so this call and a loop over the same streams cannot deadlock
    WITH locked AS (
      INSERT INTO hcn_streams AS h (stream_id) SELECT n FROM unnest(v_names) n ORDER BY n
      ON CONFLICT (stream_id) DO UPDATE SET revision = h.revision
      RETURNING h.stream_id, h.revision, h.last_txid
    )
    SELECT count(*) FILTER (WHERE s.last_txid > pg_current_xact_id()),
      count(*) FILTER (WHERE (r.expected = 'no_stream' AND s.revision <> -1)
        OR (r.expected = 'stream_exists' AND s.revision = -1)
        OR (r.expected ~ '^[0-9]+$' AND s.revision <> r.expected::bigint))
      INTO v_stale, v_wrong
    FROM locked s
    JOIN (SELECT x->>'stream' AS stream, x->>'expected' AS expected FROM jsonb_array_elements(p_requests) x) r
      ON r.stream = s.stream_id;
    IF v_stale > 0 THEN
      RAISE EXCEPTION USING ERRCODE = 'HC003', MESSAGE = 'a younger transaction wrote a stream first';
    END IF;
    IF v_wrong > 0 THEN
      RAISE EXCEPTION USING ERRCODE = 'HC001', MESSAGE = 'wrong expected revision', DETAIL = '-1';
    END IF;
    RETURN QUERY
    WITH req AS (
      SELECT (t.o - 1)::int AS idx, t.x->>'stream' AS stream, t.x->'events' AS events,
        jsonb_array_length(t.x->'events') AS n
      FROM jsonb_array_elements(p_requests) WITH ORDINALITY AS t(x, o)
    ), cur AS (
      SELECT req.*, s.revision AS current,
        coalesce(s.last_hash, sha256(convert_to(req.stream, 'UTF8'))) AS head
      FROM req JOIN hcn_streams s ON s.stream_id = req.stream
    ), linked AS (
      SELECT cur.*, CASE WHEN cur.n = 1 AND cur.events->0 ? 'ch'
          THEN ARRAY[cur.head, sha256(cur.head || decode(cur.events->0->>'ch', 'hex'))]
          ELSE hcn_hash_chain(cur.head,
            ARRAY(SELECT e->>'ch' FROM jsonb_array_elements(cur.events) WITH ORDINALITY AS t(e, o) ORDER BY t.o))
        END AS chain
      FROM cur
    ), ins AS (
      INSERT INTO hcn_events (event_id, stream_id, revision, type, data, metadata, prev_hash, hash)
      SELECT (e.x->>'id')::uuid, l.stream, l.current + e.o, e.x->>'type', e.x->'data', e.x->'meta',
        CASE WHEN e.x ? 'ch' THEN l.chain[e.o] END, CASE WHEN e.x ? 'ch' THEN l.chain[e.o + 1] END
      FROM linked l CROSS JOIN LATERAL jsonb_array_elements(l.events) WITH ORDINALITY AS e(x, o)
      ORDER BY l.stream, e.o
      RETURNING hcn_events.stream_id, hcn_events.seq
    ), bumped AS (
      UPDATE hcn_streams s SET revision = l.current + l.n, last_txid = pg_current_xact_id(),
        last_prev = l.chain[l.n], last_ch = decode(l.events->(l.n - 1)->>'ch', 'hex'), last_hash = l.chain[l.n + 1]
      FROM linked l WHERE s.stream_id = l.stream
      RETURNING s.stream_id
    ), last_seq AS (
      SELECT ins.stream_id, max(ins.seq) AS seq FROM ins GROUP BY ins.stream_id
    )
    SELECT l.idx, l.current + l.n, pg_current_xact_id(), q.seq
    FROM linked l JOIN last_seq q ON q.stream_id = l.stream JOIN bumped b ON b.stream_id = l.stream;
    PERFORM pg_notify('hcn_events', '');
  END
  $fn$;
`;
