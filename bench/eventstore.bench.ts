import { NewEvent } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { testEventRegistry } from '../libs/eventstore/src/testing/test-events';
import { benchDatabase, progress, report } from './support';

const SECONDS_PER_SCENARIO = Number(process.env.BENCH_SECONDS ?? 5);
const CATCH_UP_EVENTS = Number(process.env.BENCH_CATCHUP_EVENTS ?? 200_000);

function events(count: number, base: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    eventId: randomUUID(),
    type: 'ThingHappened',
    data: { n: base + i, note: 'cpu=0.42 mem=0.61 gpu0=0.93 gpu1=0.12' },
    metadata: {
      correlationId: 'bench',
      causationId: 'bench',
      actor: { kind: 'system', id: 'bench' },
      occurredAt: '2026-11-22T00:00:00.000Z',
    },
  }));
}

/** Runs `writers` loops for the scenario's duration; returns events written per second. */
async function timed(
  writers: number,
  step: (writer: number, iteration: number) => Promise<number>,
): Promise<number> {
  const deadline = Date.now() + SECONDS_PER_SCENARIO * 1000;
  const started = process.hrtime.bigint();
  const counts = await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      let written = 0;
      for (let i = 0; Date.now() < deadline; i++) written += await step(w, i);
      return written;
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

/** Raw baseline: the same rows through one multi-row INSERT into an identical table, no checks. */
function rawInsert(pool: Pool, batch: number, run: string) {
  return async (writer: number, iteration: number): Promise<number> => {
    const payload = events(batch, iteration * batch).map((e) => ({
      id: e.eventId,
      type: e.type,
      data: e.data,
      meta: e.metadata,
    }));
    await pool.query(
      `INSERT INTO raw_events (event_id, stream_id, revision, type, data, metadata)
       SELECT (t.e->>'id')::uuid, $1, $2 + t.o, t.e->>'type', t.e->'data', t.e->'meta'
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(e, o)`,
      [`raw-${run}-${writer}-${iteration}`, 0, JSON.stringify(payload)],
    );
    return batch;
  };
}

/** The store's append path: validation, expected-revision check, idempotency check, NOTIFY. */
function storeAppend(store: PostgresEventStore, batch: number, run: string) {
  const revisions = new Map<number, number>();
  return async (writer: number, iteration: number): Promise<number> => {
    const expected = revisions.get(writer) ?? 'no_stream';
    const result = await store.append(`bench-${run}-${writer}`, events(batch, iteration * batch), expected);
    revisions.set(writer, result.nextExpectedRevision);
    return batch;
  };
}

/** Heartbeat-style appendMany: one event to each of `streams` streams, expected revision 'any' (set-based path). */
function heartbeatAppendMany(store: PostgresEventStore, streams: number, run: string) {
  return async (writer: number, iteration: number): Promise<number> => {
    const requests = Array.from({ length: streams }, (_, s) => ({
      streamId: `hb-${run}-${writer}-${s}`,
      events: events(1, iteration),
      expectedRevision: 'any' as const,
    }));
    const outcomes = await store.appendMany(requests);
    return outcomes.filter((o) => o.ok).length;
  };
}

async function heartbeatScenarios(store: PostgresEventStore) {
  const rows = [];
  for (const writers of [1, 4]) {
    const streams = 500;
    console.log(`[bench] appendMany: ${writers} writer(s), ${streams} streams x 1 event ('any')`);
    const stored = await timed(writers, heartbeatAppendMany(store, streams, `${writers}`));
    rows.push({ writers, streams, storeEventsPerSec: Math.round(stored) });
    console.log(`[bench]   store ${Math.round(stored)} ev/s`);
  }
  return rows;
}

async function appendScenarios(store: PostgresEventStore, pool: Pool) {
  const rows = [];
  for (const writers of [1, 8]) {
    for (const batch of [1, 100]) {
      const label = `${writers} writer(s), batch ${batch}`;
      console.log(`[bench] append: ${label} (${SECONDS_PER_SCENARIO}s raw, ${SECONDS_PER_SCENARIO}s store)`);
      const raw = await timed(writers, rawInsert(pool, batch, `${writers}-${batch}`));
      const stored = await timed(writers, storeAppend(store, batch, `${writers}-${batch}`));
      rows.push({
        writers,
        batch,
        rawEventsPerSec: Math.round(raw),
        storeEventsPerSec: Math.round(stored),
        ratio: +(stored / raw).toFixed(3),
      });
      console.log(
        `[bench]   raw ${Math.round(raw)} ev/s, store ${Math.round(stored)} ev/s, ratio ${(stored / raw).toFixed(2)}`,
      );
    }
  }
  return rows;
}

/** Baseline for catch-up: the same rows in the same index order, plain keyset pages of 1000 (no horizon, no validation). */
async function rawKeysetRead(
  store: PostgresEventStore,
): Promise<{ events: number; seconds: number; eventsPerSec: number }> {
  void store;
  const pool = new Pool({ connectionString: currentUrl, max: 1 });
  const started = process.hrtime.bigint();
  let events = 0;
  let last = ['0', '0'];
  try {
    for (;;) {
      const { rows } = await pool.query(
        `SELECT txid::text AS txid, seq::text AS seq, event_id, stream_id, revision, type, data, metadata, recorded_at
         FROM hcn_events WHERE (txid, seq) > ($1::text::xid8, $2::bigint) ORDER BY hcn_events.txid, hcn_events.seq LIMIT 1000`,
        last,
      );
      if (rows.length === 0) break;
      events += rows.length;
      last = [rows[rows.length - 1].txid, rows[rows.length - 1].seq];
    }
  } finally {
    await pool.end();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { events, seconds: +seconds.toFixed(2), eventsPerSec: Math.round(events / seconds) };
}

let currentUrl = '';

async function catchUp(store: PostgresEventStore) {
  console.log(`[bench] catch-up: writing ${CATCH_UP_EVENTS} events`);
  const perAppend = 1000;
  for (let i = 0; i < CATCH_UP_EVENTS / perAppend; i++) {
    await store.append(`catchup-${i % 50}`, events(perAppend, i * perAppend), 'any');
    progress('writing', (i + 1) * perAppend, CATCH_UP_EVENTS);
  }
  const total = (await store.readAll()).length;
  const measure = async (filter?: { kind: 'streamPrefix'; prefixes: string[] }) => {
    let seen = 0;
    const started = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const subscription = store.subscribeToAll({
        filter,
        onEvent: () => {
          seen++;
          if (seen % 20000 === 0) progress('catching up', Math.min(seen, total), total);
        },
        onCaughtUp: () => void subscription.stop().then(resolve),
        onError: reject,
      });
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { events: seen, seconds: +seconds.toFixed(2), eventsPerSec: Math.round(seen / seconds) };
  };
  const analyze = new Pool({ connectionString: currentUrl, max: 1 });
  await analyze.query('ANALYZE hcn_events'); // fresh statistics for both readers
  await analyze.end();
  const rawRead = await rawKeysetRead(store);
  const unfiltered = await measure();
  const filtered = await measure({ kind: 'streamPrefix', prefixes: ['catchup-'] });
  return {
    rawRead,
    unfiltered,
    filtered,
    unfilteredToRaw: +(unfiltered.eventsPerSec / rawRead.eventsPerSec).toFixed(3),
  };
}

/** Event store benchmark: appends against a raw INSERT baseline, and subscription catch-up. */
export async function run(): Promise<void> {
  const db = await benchDatabase('eventstore');
  const store = await PostgresEventStore.connect({
    connectionString: db.url,
    registry: testEventRegistry,
    poolSize: 10,
  });
  const pool = new Pool({ connectionString: db.url, max: 10 });
  currentUrl = db.url;
  try {
    await pool.query('CREATE TABLE raw_events (LIKE hcn_events INCLUDING ALL)');
    const appends = await appendScenarios(store, pool);
    const heartbeatAppendMany = await heartbeatScenarios(store);
    const catchup = await catchUp(store);
    report('eventstore', { secondsPerScenario: SECONDS_PER_SCENARIO, appends, heartbeatAppendMany, catchup });
  } finally {
    await pool.end();
    await store.close();
    await db.stop();
  }
}
