import { HcnError, NewEvent, RecordedEvent } from '@hcn/contracts';
import { sleep } from '@hcn/testing';
import { chainHash, contentHash, genesisHash } from '../hash-chain';
import { verifyHashChain } from '../verify/verify-hash-chain';
import { TestEventStore, thing, uniqueStream } from './test-events';

/** Asserts that a stream's events form an unbroken chain from its genesis hash. */
function expectChained(stream: string, events: readonly RecordedEvent[]): void {
  let prev = genesisHash(stream);
  for (const event of events) {
    expect(event.metadata.prevHash).toBe(prev);
    expect(event.metadata.hash).toBe(chainHash(prev, contentHash(event)));
    prev = event.metadata.hash!;
  }
}

/** Hash-chain cases of the EventStore contract: every adapter links each stream's events. */
export function hashChainContract(getStore: () => TestEventStore): void {
  it('chains every appended event to the previous one of its stream, across appends', async () => {
    const store = getStore();
    const stream = uniqueStream('c-hash');
    await store.append(stream, [thing(1), thing(2), thing(3)], 'no_stream');
    await store.append(stream, [thing(4)], 2);
    await store.append(stream, [thing(5), thing(6)], 'any');
    const events = await store.readStream(stream);
    expect(events).toHaveLength(6);
    expectChained(stream, events);
    expect(new Set(events.map((e) => e.metadata.hash)).size).toBe(6);
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
    for (const stream of [a, b, c, d, e]) expectChained(stream, await store.readStream(stream));
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
    expectChained(stream, await store.readStream(stream));
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
