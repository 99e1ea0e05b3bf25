import { HcnError, Position, RecordedOf, comparePositions } from '@hcn/contracts';
import { eventually, sleep } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, DuplicateEventIdError } from '../errors';
import { hashChainContract } from './hash-chain.contract';
import { supervisedSubscriptionContract } from './supervised-subscription.contract';
import { TestEvent, TestEventStore, labelOf, numberOf, otherThing, thing, uniqueStream } from './test-events';

/** Builds the store under test (registry: testEventRegistry) and tears it down. */
export interface EventStoreFixture {
  store: TestEventStore;
  teardown(): Promise<void>;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<HcnError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HcnError);
  expect((error as HcnError).code).toBe(code);
  return error as HcnError;
}

const ns = numberOf;

/** The one contract every EventStore adapter must pass (EventStoreDB's semantics). */
export function eventStoreContract(makeFixture: () => Promise<EventStoreFixture>): void {
  let fixture: EventStoreFixture;
  let store: TestEventStore;
  beforeAll(async () => {
    fixture = await makeFixture();
    store = fixture.store;
  });
  afterAll(async () => fixture?.teardown());

  describe('append', () => {
    it('creates a stream with no_stream and numbers revisions from zero', async () => {
      const stream = uniqueStream('c-create');
      const result = await store.append(stream, [thing(1), thing(2), thing(3)], 'no_stream');
      expect(result.nextExpectedRevision).toBe(2);
      const events = await store.readStream(stream);
      expect(events.map((e) => [e.revision, ns(e), e.streamId])).toEqual([
        [0, 1, stream],
        [1, 2, stream],
        [2, 3, stream],
      ]);
      expect(comparePositions(events[2].position, result.position)).toBe(0);
      expect(events[0].metadata).toMatchObject({
        correlationId: 'corr-1',
        causationId: 'cause-1',
        schemaVersion: 1,
      });
      expect(events[0].metadata.actor).toEqual({ kind: 'system', id: 'spec' });
      expect(Number.isNaN(Date.parse(events[0].recordedAt))).toBe(false);
    });

    it('rejects no_stream on an existing stream with the actual revision', async () => {
      const stream = uniqueStream('c-nostream');
      await store.append(stream, [thing(1), thing(2)], 'no_stream');
      const error = await expectCode(
        store.append(stream, [thing(3)], 'no_stream'),
        'EVENTSTORE.WRONG_EXPECTED_REVISION',
      );
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect((error as ConcurrencyError).actual).toBe(1);
    });

    it('checks an exact expected revision', async () => {
      const stream = uniqueStream('c-exact');
      await store.append(stream, [thing(1)], 'no_stream');
      await expect(store.append(stream, [thing(2)], 0)).resolves.toMatchObject({ nextExpectedRevision: 1 });
      const error = await expectCode(
        store.append(stream, [thing(3)], 0),
        'EVENTSTORE.WRONG_EXPECTED_REVISION',
      );
      expect((error as ConcurrencyError).actual).toBe(1);
      await expectCode(
        store.append(uniqueStream('c-exact-missing'), [thing(1)], 0),
        'EVENTSTORE.WRONG_EXPECTED_REVISION',
      );
    });

    it('checks stream_exists and accepts any', async () => {
      const stream = uniqueStream('c-exists');
      await expectCode(
        store.append(stream, [thing(1)], 'stream_exists'),
        'EVENTSTORE.WRONG_EXPECTED_REVISION',
      );
      await store.append(stream, [thing(1)], 'any');
      await store.append(stream, [thing(2)], 'stream_exists');
      await store.append(stream, [thing(3)], 'any');
      expect((await store.readStream(stream)).map(ns)).toEqual([1, 2, 3]);
    });

    it('writes nothing when the expected revision is wrong (all-or-nothing)', async () => {
      const stream = uniqueStream('c-atomic');
      await store.append(stream, [thing(1)], 'no_stream');
      await expectCode(store.append(stream, [thing(2), thing(3)], 5), 'EVENTSTORE.WRONG_EXPECTED_REVISION');
      expect((await store.readStream(stream)).map(ns)).toEqual([1]);
    });

    it('writes nothing when one event of a batch fails its schema', async () => {
      const stream = uniqueStream('c-schema');
      const bad = { ...thing(2), data: { n: 'two' } };
      const error = await expectCode(store.append(stream, [thing(1), bad], 'any'), 'EVENT.SCHEMA_INVALID');
      expect(JSON.stringify(error.details)).toContain('EVENT.SCHEMA_INVALID');
      await expectCode(
        store.append(stream, [{ ...thing(1), type: 'NoSuchEvent' }], 'any'),
        'EVENT.UNKNOWN_TYPE',
      );
      const badMeta = { ...thing(1), metadata: { ...thing(1).metadata, occurredAt: 'yesterday' } };
      await expectCode(store.append(stream, [badMeta], 'any'), 'EVENT.METADATA_INVALID');
      await expectCode(
        store.append(stream, [{ ...thing(1), eventId: 'not-a-uuid' }], 'any'),
        'EVENT.ID_INVALID',
      );
      await expectCode(store.append(stream, [], 'any'), 'EVENTSTORE.INVALID_APPEND');
      expect(await store.readStream(stream)).toEqual([]);
    });

    it('is idempotent on event ids: a retried append writes nothing and returns the first result', async () => {
      const stream = uniqueStream('c-idem');
      const batch = [thing(1), thing(2)];
      const first = await store.append(stream, batch, 'no_stream');
      const retry = await store.append(stream, batch, 'no_stream');
      expect(retry.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(comparePositions(retry.position, first.position)).toBe(0);
      expect((await store.readStream(stream)).map(ns)).toEqual([1, 2]);
    });

    it('refuses an event id that already lives in another stream', async () => {
      const event = thing(1);
      await store.append(uniqueStream('c-dup-a'), [event], 'no_stream');
      const other = uniqueStream('c-dup-b');
      const error = await expectCode(
        store.append(other, [event, thing(2)], 'any'),
        'EVENTSTORE.DUPLICATE_EVENT_ID',
      );
      expect(error).toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream(other)).toEqual([]);
    });

    it('lets exactly one of many racing appends with the same expected revision win', async () => {
      const stream = uniqueStream('c-race');
      await store.append(stream, [thing(0)], 'no_stream');
      const results = await Promise.allSettled(
        [1, 2, 3, 4, 5, 6].map((n) => store.append(stream, [thing(n)], 0)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failures.every((f) => f.reason instanceof ConcurrencyError)).toBe(true);
      expect(await store.readStream(stream)).toHaveLength(2);
    });
  });

  describe('appendMany', () => {
    it('appends to several streams with one outcome per request, in request order', async () => {
      const [a, b, c] = [uniqueStream('c-many-a'), uniqueStream('c-many-b'), uniqueStream('c-many-c')];
      await store.append(b, [thing(0)], 'no_stream');
      const outcomes = await store.appendMany([
        { streamId: c, events: [thing(1), thing(2)], expectedRevision: 'no_stream' },
        { streamId: a, events: [thing(3)], expectedRevision: 'any' },
        { streamId: b, events: [thing(4)], expectedRevision: 0 },
      ]);
      expect(outcomes.map((o) => o.ok && o.result.nextExpectedRevision)).toEqual([1, 0, 1]);
      expect((await store.readStream(c)).map(ns)).toEqual([1, 2]);
      expect((await store.readStream(b)).map(ns)).toEqual([0, 4]);
    });

    it('numbers revisions per stream when every request expects any (existing and new streams)', async () => {
      const [old, fresh] = [uniqueStream('c-many-old'), uniqueStream('c-many-new')];
      await store.append(old, [thing(0), thing(1)], 'no_stream');
      const outcomes = await store.appendMany([
        { streamId: fresh, events: [thing(10), thing(11)], expectedRevision: 'any' },
        { streamId: old, events: [thing(2), thing(3), thing(4)], expectedRevision: 'any' },
      ]);
      expect(outcomes.map((o) => o.ok && o.result.nextExpectedRevision)).toEqual([1, 4]);
      const oldEvents = await store.readStream(old);
      expect(oldEvents.map((e) => [e.revision, ns(e)])).toEqual([
        [0, 0],
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
      expect((await store.readStream(fresh)).map((e) => [e.revision, ns(e)])).toEqual([
        [0, 10],
        [1, 11],
      ]);
      const last = oldEvents[4];
      expect(outcomes[1].ok && comparePositions(outcomes[1].result.position, last.position)).toBe(0);
    });

    it('refuses only the request whose expected revision is wrong; the others are appended', async () => {
      const [ok, stale] = [uniqueStream('c-many-ok'), uniqueStream('c-many-stale')];
      await store.append(stale, [thing(0), thing(1)], 'no_stream');
      const outcomes = await store.appendMany([
        { streamId: stale, events: [thing(9)], expectedRevision: 0 },
        { streamId: ok, events: [thing(5)], expectedRevision: 'no_stream' },
      ]);
      expect(outcomes[0].ok).toBe(false);
      expect(!outcomes[0].ok && outcomes[0].error).toBeInstanceOf(ConcurrencyError);
      expect(outcomes[1].ok).toBe(true);
      expect((await store.readStream(stale)).map(ns)).toEqual([0, 1]);
      expect((await store.readStream(ok)).map(ns)).toEqual([5]);
    });

    it('is idempotent for a replayed request', async () => {
      const stream = uniqueStream('c-many-idem');
      const events = [thing(1)];
      await store.appendMany([{ streamId: stream, events, expectedRevision: 'any' }]);
      const again = await store.appendMany([
        { streamId: stream, events, expectedRevision: 'any' },
        { streamId: stream + '-x', events: [thing(2)], expectedRevision: 'any' },
      ]);
      expect(again.every((o) => o.ok)).toBe(true);
      expect(await store.readStream(stream)).toHaveLength(1);
    });
  });

  describe('readStream', () => {
    it('reads forwards and backwards from a revision with a max count; a missing stream is empty', async () => {
      const stream = uniqueStream('c-read');
      await store.append(
        stream,
        [0, 1, 2, 3, 4].map((n) => thing(n)),
        'no_stream',
      );
      expect((await store.readStream(stream, { fromRevision: 2 })).map(ns)).toEqual([2, 3, 4]);
      expect((await store.readStream(stream, { fromRevision: 1, maxCount: 2 })).map(ns)).toEqual([1, 2]);
      expect((await store.readStream(stream, { direction: 'backwards' })).map(ns)).toEqual([4, 3, 2, 1, 0]);
      expect(
        (await store.readStream(stream, { direction: 'backwards', fromRevision: 3, maxCount: 2 })).map(ns),
      ).toEqual([3, 2]);
      expect(await store.readStream(uniqueStream('c-missing'))).toEqual([]);
    });
  });

  describe('readAll', () => {
    it('reads the global log in position order from an exclusive position, filtered server-side', async () => {
      const prefix = `c-all-${randomUUID().slice(0, 6)}`;
      await store.append(`${prefix}-a`, [thing(1), thing(2)], 'no_stream');
      await store.append(`${prefix}-b`, [otherThing('x')], 'no_stream');
      await store.append(`${prefix}-a`, [thing(3)], 1);
      const all = await store.readAll({ filter: { kind: 'streamPrefix', prefixes: [prefix] } });
      expect(all.map((e) => `${e.streamId.slice(-1)}:${e.type}`)).toEqual([
        'a:ThingHappened',
        'a:ThingHappened',
        'b:OtherThingHappened',
        'a:ThingHappened',
      ]);
      for (let i = 1; i < all.length; i++)
        expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);
      const after = await store.readAll({
        after: all[1].position,
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
      });
      expect(after.map((e) => e.eventId)).toEqual(all.slice(2).map((e) => e.eventId));
      const limited = await store.readAll({
        maxCount: 2,
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
      });
      expect(limited.map((e) => e.eventId)).toEqual(all.slice(0, 2).map((e) => e.eventId));
      const byType = await store.readAll({
        after: all[0].position,
        filter: { kind: 'eventTypePrefix', prefixes: ['OtherThing'] },
      });
      expect(byType.map((e) => e.eventId)).toContain(all[2].eventId);
      expect(byType.every((e) => e.type === 'OtherThingHappened')).toBe(true);
    });
  });

  describe('subscribeToAll', () => {
    it('delivers history then live events exactly once, in order, and reports caught-up and checkpoints', async () => {
      const prefix = `c-sub-${randomUUID().slice(0, 6)}`;
      await store.append(`${prefix}-1`, [thing(1), thing(2)], 'no_stream');
      const seen: Array<RecordedOf<TestEvent>> = [];
      const checkpoints: Position[] = [];
      let caughtUp = false;
      const subscription = store.subscribeToAll({
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
        onEvent: (e) => void seen.push(e),
        onCheckpoint: (p) => void checkpoints.push(p),
        onCaughtUp: () => (caughtUp = true),
      });
      try {
        await eventually('history delivered', () => seen.length === 2 && caughtUp);
        await store.append(`${prefix}-2`, [thing(3)], 'no_stream');
        await store.append(`${prefix}-1`, [thing(4), thing(5)], 1);
        await eventually('live events delivered', () => seen.length === 5);
        await sleep(300);
        expect(seen.map(ns)).toEqual([1, 2, 3, 4, 5]);
        expect(new Set(seen.map((e) => e.eventId)).size).toBe(5);
        await eventually('a checkpoint', () => checkpoints.length > 0);
      } finally {
        await subscription.stop();
      }
    });

    it('resumes after an exclusive position without repeating, and honours an event-type filter', async () => {
      const prefix = `c-resume-${randomUUID().slice(0, 6)}`;
      await store.append(`${prefix}-x`, [thing(1), otherThing('a'), thing(2), otherThing('b')], 'no_stream');
      const history = await store.readAll({ filter: { kind: 'streamPrefix', prefixes: [prefix] } });
      const seen: Array<RecordedOf<TestEvent>> = [];
      const subscription = store.subscribeToAll({
        after: history[0].position,
        filter: { kind: 'eventTypePrefix', prefixes: ['OtherThing'] },
        onEvent: (e) => void (e.streamId.startsWith(prefix) && seen.push(e)),
      });
      try {
        await eventually('filtered events', () => seen.length === 2);
        await sleep(200);
        expect(seen.map(labelOf)).toEqual(['a', 'b']);
      } finally {
        await subscription.stop();
      }
    });

    it('stops delivering after stop()', async () => {
      const prefix = `c-stop-${randomUUID().slice(0, 6)}`;
      const seen: Array<RecordedOf<TestEvent>> = [];
      const subscription = store.subscribeToAll({
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
        onEvent: (e) => void seen.push(e),
      });
      await store.append(`${prefix}-1`, [thing(1)], 'no_stream');
      await eventually('first event', () => seen.length === 1);
      await subscription.stop();
      await store.append(`${prefix}-1`, [thing(2)], 0);
      await sleep(400);
      expect(seen).toHaveLength(1);
    });
  });

  describe('hash chain (tamper evidence)', () => hashChainContract(() => store));
  describe('supervised subscription', () => supervisedSubscriptionContract(() => store));

  describe('stream metadata', () => {
    it('round-trips maxAge and maxCount, and reads honour maxCount', async () => {
      const stream = uniqueStream('c-meta');
      expect(await store.getStreamMetadata(stream)).toEqual({});
      await store.setStreamMetadata(stream, { maxCount: 2 });
      await store.append(
        stream,
        [1, 2, 3, 4].map((n) => thing(n)),
        'any',
      );
      expect((await store.readStream(stream)).map(ns)).toEqual([3, 4]);
      expect((await store.readStream(stream, { direction: 'backwards' })).map(ns)).toEqual([4, 3]);
      await store.setStreamMetadata(stream, { maxAge: 3600, maxCount: 3 });
      expect(await store.getStreamMetadata(stream)).toEqual({ maxAge: 3600, maxCount: 3 });
      expect((await store.readStream(stream)).map(ns)).toEqual([2, 3, 4]);
    });

    it('hides events older than maxAge', async () => {
      const stream = uniqueStream('c-age');
      await store.append(stream, [thing(1)], 'no_stream');
      await store.setStreamMetadata(stream, { maxAge: 1 });
      await sleep(2100);
      await store.append(stream, [thing(2)], 0);
      expect((await store.readStream(stream)).map(ns)).toEqual([2]);
    });
  });
}
