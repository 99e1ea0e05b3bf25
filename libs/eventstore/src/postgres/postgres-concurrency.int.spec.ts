import { Position, RecordedEvent, comparePositions } from '@hcn/contracts';
import { TestDatabase, createTestDatabase, describeWithPostgres, eventually, sleep } from '@hcn/testing';
import { Client } from 'pg';
import { testEventRegistry, thing } from '../testing/test-events';
import { StaleTransactionError } from './pg-errors';
import { PostgresEventStore, appendWithClient } from './postgres-event-store';

interface AppendRecord {
  ids: string[];
  startedAt: number;
  committedAt: number;
}

const WRITERS = 8;
const APPENDS_PER_WRITER = 40;
const EVENTS_PER_APPEND = 3;

/**
 * Architecture invariant 2: with many concurrent writers and one transaction held open before commit, a
 * subscriber gets every event exactly once, in an order consistent with commit order, and a re-read of `$all`
 * from zero matches what it saw. A reader following the sequence alone would skip the late transaction's events.
 */
describeWithPostgres('PostgresEventStore under concurrent writers (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('es_conc');
    store = await PostgresEventStore.connect({
      connectionString: db.url,
      registry: testEventRegistry,
      poolSize: 12,
    });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('never skips or repeats an event, also when the first transaction commits last', async () => {
    const seen: RecordedEvent[] = [];
    const checkpoints: Position[] = [];
    const subscription = store.subscribeToAll({
      filter: { kind: 'streamPrefix', prefixes: ['conc-'] },
      onEvent: (e) => void seen.push(e),
      onCheckpoint: (p) => void checkpoints.push(p),
    });

    // The slow writer takes its transaction id first, appends, then holds the transaction open.
    const slow = new Client({ connectionString: db.url });
    await slow.connect();
    await slow.query('BEGIN');
    const slowEvents = store.prepare([thing(-1), thing(-2)]);
    const slowResult = await appendWithClient(slow, 'conc-slow', slowEvents, 'no_stream');
    const slowStarted = Date.now();

    const records: AppendRecord[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < APPENDS_PER_WRITER; i++) {
        const events = Array.from({ length: EVENTS_PER_APPEND }, (_, k) => thing(w * 10_000 + i * 10 + k));
        const startedAt = Date.now();
        // Half the writers share one stream and retry on conflicts, the others own theirs.
        const stream = w % 2 === 0 ? 'conc-shared' : `conc-w${w}`;
        for (;;) {
          try {
            await store.append(stream, events, 'any');
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== 'EVENTSTORE.WRONG_EXPECTED_REVISION') throw error;
          }
        }
        records.push({ ids: events.map((e) => e.eventId), startedAt, committedAt: Date.now() });
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    await sleep(500);

    // While the slow transaction is open, nothing after its position may have been delivered.
    const deliveredWhileOpen = seen.length;
    expect(seen.every((e) => comparePositions(e.position, slowResult.position) < 0)).toBe(true);
    expect(checkpoints.every((p) => comparePositions(p, slowResult.position) < 0)).toBe(true);
    const otherTotal = WRITERS * APPENDS_PER_WRITER * EVENTS_PER_APPEND;
    expect(deliveredWhileOpen).toBeLessThan(otherTotal);

    await slow.query('COMMIT');
    await slow.end();
    const slowCommittedAt = Date.now();
    records.push({
      ids: slowEvents.map((e) => e.eventId),
      startedAt: slowStarted - 1,
      committedAt: slowCommittedAt,
    });

    const total = otherTotal + slowEvents.length;
    await eventually('every event delivered', () => seen.length >= total, 20000);
    await sleep(500);
    await subscription.stop();

    // Exactly once.
    const ids = seen.map((e) => e.eventId);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(ids).toEqual(expect.arrayContaining(slowEvents.map((e) => e.eventId)));

    // Positions strictly increase; revisions within each stream are delivered in order without gaps.
    for (let i = 1; i < seen.length; i++)
      expect(comparePositions(seen[i - 1].position, seen[i].position)).toBeLessThan(0);
    const lastRevision = new Map<string, number>();
    for (const event of seen) {
      expect(event.revision).toBe((lastRevision.get(event.streamId) ?? -1) + 1);
      lastRevision.set(event.streamId, event.revision);
    }

    // Consistent with commit order: an append that committed before another started is delivered before it.
    const index = new Map(ids.map((id, i) => [id, i]));
    const spans = records.map((r) => ({
      ...r,
      first: index.get(r.ids[0])!,
      last: index.get(r.ids[r.ids.length - 1])!,
    }));
    for (const a of spans) {
      for (const b of spans) {
        if (a.committedAt < b.startedAt) expect(a.last).toBeLessThan(b.first);
      }
    }

    // Re-reading $all from zero yields the same events in the same order.
    const reread = await store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['conc-'] } });
    expect(reread.map((e) => e.eventId)).toEqual(ids);

    // A reader that follows the sequence alone would have skipped the slow transaction's events.
    const slowSeqs = seen.filter((e) => e.streamId === 'conc-slow').map((e) => e.position.prepare);
    const maxSeqDeliveredWhileOpen = seen
      .slice(0, deliveredWhileOpen)
      .reduce((m, e) => (e.position.prepare > m ? e.position.prepare : m), 0n);
    expect(slowSeqs.every((s) => s < maxSeqDeliveredWhileOpen || deliveredWhileOpen === 0)).toBe(true);
  }, 60000);
  it("refuses an append whose transaction id is older than the stream's last writer, so revisions follow positions", async () => {
    // The old transaction gets its id first; a younger one then writes the stream and commits.
    const old = new Client({ connectionString: db.url });
    await old.connect();
    try {
      await old.query('BEGIN');
      await old.query('SELECT pg_current_xact_id()');
      await store.append('order-s', [thing(1)], 'any');

      await expect(appendWithClient(old, 'order-s', store.prepare([thing(2)]), 'any')).rejects.toBeInstanceOf(
        StaleTransactionError,
      );
      await old.query('ROLLBACK');

      // The set-based batch path refuses too, and writes nothing.
      await old.query('BEGIN');
      await old.query('SELECT pg_current_xact_id()');
      await store.append('order-t', [thing(3)], 'any');
      const request = [
        {
          stream: 'order-t',
          expected: 'any',
          // one event with a content hash ('ch'): the set-based path (migration 5)
          events: [
            { id: thing(4).eventId, type: 'ThingHappened', data: { n: 4 }, meta: {}, ch: 'ab'.repeat(32) },
          ],
        },
      ];
      await expect(
        old.query('SELECT * FROM hcn_append_many($1::jsonb)', [JSON.stringify(request)]),
      ).rejects.toMatchObject({
        code: 'HC003',
      });
      await old.query('ROLLBACK');
    } finally {
      await old.end();
    }

    // A fresh transaction appends behind the younger writer; $all order and revision order agree.
    await store.append('order-s', [thing(5)], 'any');
    const events = await store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['order-s'] } });
    expect(events.map((e) => e.revision)).toEqual([0, 1]);
    expect((await store.readStream('order-t')).map((e) => e.revision)).toEqual([0]);
  });
});
