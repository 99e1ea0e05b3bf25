import { RecordedEvent } from '@hcn/contracts';
import { TestDatabase, createTestDatabase, describeWithPostgres, eventually, sleep } from '@hcn/testing';
import { Client } from 'pg';
import type { EventFilter } from '../port';
import { otherThing, testEventRegistry, thing } from '../testing/test-events';
import { PostgresEventStore, appendWithClient } from './postgres-event-store';

/** A follower of the spec: its filter, coalescing and what it received. */
interface Follower {
  readonly name: string;
  readonly filter?: EventFilter;
  readonly coalesceMs?: number;
  readonly seen: RecordedEvent[];
}

/**
 * Subscriptions of one PostgreSQL store share one read of the end of `$all` (SharedTail). With followers of
 * different filters and pace, concurrent writers and a transaction that commits last, each follower still gets
 * exactly the events its own reads would give, in log order, and the tail's reads serve them all.
 */
describeWithPostgres('PostgresEventStore shared tail (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('es_tail');
    store = await PostgresEventStore.connect({
      connectionString: db.url,
      registry: testEventRegistry,
      poolSize: 8,
      // no polling fallback within a spec's time: a follower learns of new events from wake-ups alone
      polling: { pollIntervalMs: 60_000 },
    });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('serves every follower its own events exactly once, in order, also around a late commit', async () => {
    await store.append('tail-before', [thing(0)], 'no_stream'); // followers start behind the tail, then join it
    const followers: Follower[] = [
      { name: 'all', seen: [] },
      { name: 'a-streams', filter: { kind: 'streamPrefix', prefixes: ['tail-a'] }, seen: [] },
      {
        name: 'others',
        filter: { kind: 'eventTypePrefix', prefixes: ['OtherThing'] },
        coalesceMs: 100,
        seen: [],
      },
      { name: 'b-and-slow', filter: { kind: 'streamPrefix', prefixes: ['tail-b', 'tail-slow'] }, seen: [] },
    ];
    const subscriptions = followers.map((f) =>
      store.subscribeToAll({
        filter: f.filter,
        coalesceMs: f.coalesceMs,
        onEvent: (e) => void f.seen.push(e),
      }),
    );
    await eventually('followers caught up', () => followers[0].seen.length === 1, 10000);

    const slow = new Client({ connectionString: db.url });
    await slow.connect();
    await slow.query('BEGIN');
    await appendWithClient(slow, 'tail-slow', store.prepare([thing(-1)]), 'no_stream');
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < 30; i++) {
        const events =
          i % 3 === 0 ? [otherThing(`w${w}-${i}`)] : [thing(w * 1000 + i), thing(w * 1000 + i + 500)];
        await store.append(`tail-${w % 2 === 0 ? 'a' : 'b'}${w}-${i}`, events, 'no_stream');
        if (i % 10 === 0) await sleep(20);
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    await sleep(300);
    expect(followers[3].seen.some((e) => e.streamId === 'tail-slow')).toBe(false);
    await slow.query('COMMIT');
    await slow.end();
    // a follower that starts late reads on its own until it reaches the tail
    const late: Follower = { name: 'late', filter: { kind: 'streamPrefix', prefixes: ['tail-'] }, seen: [] };
    subscriptions.push(store.subscribeToAll({ filter: late.filter, onEvent: (e) => void late.seen.push(e) }));
    followers.push(late);

    const all = await store.readAll();
    await eventually('every follower has its events', () => followers[0].seen.length === all.length, 20000);
    for (const follower of followers) {
      const expected = await store.readAll({ filter: follower.filter });
      await eventually(`${follower.name} complete`, () => follower.seen.length >= expected.length, 10000);
      await sleep(200);
      expect({ follower: follower.name, ids: follower.seen.map((e) => e.eventId) }).toEqual({
        follower: follower.name,
        ids: expected.map((e) => e.eventId),
      });
    }
    expect(store.sharedTailReads).toBeGreaterThan(0);
    await Promise.all(subscriptions.map((s) => s.stop()));
  }, 60000);

  it('delivers an event held back by an older open transaction once it ends, with no wake-up', async () => {
    const seen: string[] = [];
    const subscription = store.subscribeToAll({
      filter: { kind: 'streamPrefix', prefixes: ['held-'] },
      onEvent: (e) => void seen.push(e.streamId),
    });
    await store.append('held-before', [thing(1)], 'no_stream');
    await eventually('follower at the end', () => seen.length === 1, 10000);
    const older = new Client({ connectionString: db.url });
    await older.connect();
    await older.query('BEGIN');
    await older.query('SELECT pg_current_xact_id()'); // holds the horizon below the append that follows
    await store.append('held-after', [thing(2)], 'no_stream'); // its NOTIFY comes while it is held back
    await sleep(300);
    expect(seen).toEqual(['held-before']);
    await older.query('COMMIT'); // sends no NOTIFY: the follower must look again on its own
    await older.end();
    await eventually('held-back event delivered', () => seen.length === 2, 5000);
    expect(seen).toEqual(['held-before', 'held-after']);
    await subscription.stop();
  }, 30000);

  it('reads the tail once for many followers: one read per wake-up, not one per follower', async () => {
    const counts = Array.from({ length: 6 }, () => ({ n: 0 }));
    const subscriptions = counts.map((c) =>
      store.subscribeToAll({
        filter: { kind: 'streamPrefix', prefixes: ['once-'] },
        onEvent: () => void c.n++,
      }),
    );
    await sleep(1000); // every follower reached the end and joined the tail
    const before = store.sharedTailReads;
    for (let i = 0; i < 10; i++) {
      await store.append(`once-${i}`, [thing(i)], 'no_stream');
      // under the whole suite's load a wake-up can take seconds; a duplicate would still show below
      await eventually('delivered to all', () => counts.every((c) => c.n >= i + 1), 20000);
    }
    expect(counts.map((c) => c.n)).toEqual(counts.map(() => 10)); // each event once to each follower
    const reads = store.sharedTailReads - before;
    // six followers reading on their own would need at least sixty reads for ten wake-ups
    expect(reads).toBeGreaterThanOrEqual(10);
    expect(reads).toBeLessThan(40);
    await Promise.all(subscriptions.map((s) => s.stop()));
  }, 240000);
});
