import { HcnError, NewEvent, RecordedEvent } from '@hcn/contracts';
import { sleep } from '@hcn/testing';
import { chainHash, contentHash, genesisHash } from '../hash-chain';
import { verifyHashChain } from '../verify/verify-hash-chain';
import { TestEventStore, thing, uniqueStream } from './test-events';

/**
 * Asserts that a stream's events form an unbroken chain from its genesis hash; each content hash covers the event
 * as stored (without what reads fill back, such as schema version 1), so it is recomputed from the raw read.
 */
async function expectChained(store: TestEventStore, stream: string): Promise<RecordedEvent[]> {
  const events = await store.readStream(stream);
  const raw = (await store.readRaw({ streamId: stream, maxCount: 10_000 })).events;
  expect(raw.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
  let prev = genesisHash(stream);
  events.forEach((event, i) => {
    expect(event.metadata.prevHash).toBe(prev);
    expect(event.metadata.hash).toBe(chainHash(prev, contentHash(raw[i])));
    prev = event.metadata.hash!;
  });
  return events;
}

/** Hash-chain cases of the EventStore contract: every adapter links each stream's events. */
export function hashChainContract(getStore: () => TestEventStore): void {
  it('chains every appended event to the previous one of its stream, across appends', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash');
    await store.append(stream, [thing(1), thing(2), thing(3)], 'no_stream');
    await store.append(stream, [thing(4)], 2);
    await store.append(stream, [thing(5), thing(6)], 'any');
    const events = await expectChained(store, stream);
    expect(events).toHaveLength(6);
    expect(new Set(events.map((e) => e.metadata.hash)).size).toBe(6);
  });

  it('stores metadata without schema version 1 and a causation equal to the correlation, and reads both back', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash-stored');
    const own = thing(2);
    const selfCaused = { ...own, metadata: { ...own.metadata, causationId: own.metadata.correlationId } };
    await store.append(stream, [thing(1), selfCaused], 'no_stream');
    const raw = (await store.readRaw({ streamId: stream, maxCount: 10 })).events;
    expect(raw[0].metadata).not.toHaveProperty('schemaVersion');
    expect(raw[0].metadata).toMatchObject({ causationId: 'cause-1', correlationId: 'corr-1' });
    expect(raw[1].metadata).not.toHaveProperty('causationId');
    const read = await expectChained(store, stream);
    expect(read.map((e) => e.metadata)).toEqual([
      expect.objectContaining({ schemaVersion: 1, causationId: 'cause-1', correlationId: 'corr-1' }),
      expect.objectContaining({ schemaVersion: 1, causationId: 'corr-1', correlationId: 'corr-1' }),
    ]);
  });

  it('chains appendMany on every path (expected revisions; all "any" with one event each; all "any" with more)', async () => {
    const store = getStore();
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((x) => uniqueStream(`c-hash-many-${x}`));
    await store.append(a, [thing(0)], 'no_stream');
    await store.appendMany([
      { streamId: a, events: [thing(1), thing(2)], expectedRevision: 0 },
      { streamId: b, events: [thing(3)], expectedRevision: 'no_stream' },
    ]);
    await store.append(c, [thing(0)], 'no_stream');
    await store.setStreamMetadata(e, { maxAge: 3600 });
    for (let round = 0; round < 2; round++) {
      const heartbeats = [c, d, e].map((streamId, i) => ({
        streamId,
        events: [thing(10 * i + round)],
        expectedRevision: 'any' as const,
      }));
      await store.appendMany(heartbeats);
    }
    await store.appendMany([
      { streamId: c, events: [thing(40)], expectedRevision: 'any' },
      { streamId: d, events: [thing(50), thing(51)], expectedRevision: 'any' },
    ]);
    for (const stream of [a, b, c, d, e]) await expectChained(store, stream);
    expect((await store.readStream(d)).map((x) => x.revision)).toEqual([0, 1, 2, 3]);
    expect((await store.readStream(e)).map((x) => x.revision)).toEqual([0, 1]);
  });

  it('ignores hash keys a caller puts into the metadata', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash-forged');
    const forged = {
      ...thing(1),
      metadata: { ...thing(1).metadata, prevHash: 'f'.repeat(64), hash: 'e'.repeat(64) },
    };
    await store.append(stream, [forged as NewEvent], 'no_stream');
    await expectChained(store, stream);
  });

  it('verifies a stream, and the whole log, as unbroken', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash-verify');
    await store.append(stream, [thing(1), thing(2, 'zürich ✓ 🚀'), thing(3)], 'no_stream');
    const progress: number[] = [];
    const report = await verifyHashChain(store, { streamId: stream, pageSize: 2 }, (p) =>
      progress.push(p.eventsScanned),
    );
    expect(report).toMatchObject({ ok: true, streamId: stream, streamsChecked: 1, eventsChecked: 3 });
    expect(report.firstBroken).toBeUndefined();
    expect(progress).toEqual([2, 3]);
    const all = await verifyHashChain(store);
    expect(all.broken).toEqual([]);
    expect(all.eventsChecked).toBeGreaterThanOrEqual(3);
  });

  it('checks only events recorded within a period (earlier ones anchor the chain)', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash-period');
    await store.append(stream, [thing(1), thing(2)], 'no_stream');
    await sleep(20);
    const from = new Date();
    await sleep(20);
    await store.append(stream, [thing(3)], 1);
    const report = await verifyHashChain(store, {
      streamId: stream,
      from,
      to: new Date(Date.now() + 60_000),
    });
    expect(report).toMatchObject({ ok: true, eventsChecked: 1, startedMidStream: [] });
    const none = await verifyHashChain(store, { streamId: stream, to: new Date(0) });
    expect(none).toMatchObject({ ok: true, eventsChecked: 0, streamsChecked: 0 });
  });

  it('refuses to verify a stream without events', async () => {
    const error = await verifyHashChain(getStore(), { streamId: uniqueStream('c-hash-none') }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(HcnError);
    expect((error as HcnError).code).toBe('AUDIT.STREAM_NOT_FOUND');
  });

  it('verifies a stream whose head expired from its first retained event, and says so', async () => {
    const store = getStore();
    const [byCount, byAge] = [uniqueStream('c-hash-count'), uniqueStream('c-hash-age')];
    await store.setStreamMetadata(byCount, { maxCount: 2 });
    await store.append(byCount, [thing(1), thing(2), thing(3), thing(4)], 'no_stream');
    await store.append(byAge, [thing(1), thing(2)], 'no_stream');
    await store.setStreamMetadata(byAge, { maxAge: 1 });
    await sleep(2100);
    await store.append(byAge, [thing(3)], 1);
    for (const [stream, revision] of [
      [byCount, 2],
      [byAge, 2],
    ] as const) {
      const report = await verifyHashChain(store, { streamId: stream });
      expect(report).toMatchObject({ ok: true, startedMidStreamCount: 1 });
      expect(report.startedMidStream[0]).toMatchObject({
        streamId: stream,
        revision,
        reason: 'head-expired',
      });
    }
  });
}
