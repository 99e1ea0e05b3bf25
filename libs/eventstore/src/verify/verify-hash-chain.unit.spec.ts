import type { RawEvent } from '../codec';
import { MemoryEventStore } from '../memory/memory-event-store';
import type { EventStore, RawPage, ReadRawOptions } from '../port';
import { testEventRegistry, thing, uniqueStream } from '../testing/test-events';
import { MAX_LISTED } from './chain-report';
import { verifyHashChain } from './verify-hash-chain';

/** The memory store, with its raw reads passed through `edit` (what someone with write access could do). */
function tampered(store: MemoryEventStore, edit: (events: RawEvent[]) => RawEvent[]): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    readRaw: async (options: ReadRawOptions): Promise<RawPage> => {
      const page = await store.readRaw(options);
      return { ...page, events: edit(page.events) };
    },
  });
}

function meta(event: RawEvent): Record<string, unknown> {
  return event.metadata as Record<string, unknown>;
}

describe('verifyHashChain', () => {
  let store: MemoryEventStore;
  let a: string;
  let b: string;
  beforeEach(async () => {
    store = new MemoryEventStore(testEventRegistry);
    [a, b] = [uniqueStream('v-a'), uniqueStream('v-b')];
    await store.append(a, [thing(0), thing(1), thing(2)], 'no_stream');
    await store.append(b, [thing(0), thing(1)], 'no_stream');
    await store.append(a, [thing(3)], 2);
  });

  it('reports an intact log as ok, with progress per page', async () => {
    const progress: Array<[number, number | undefined]> = [];
    const report = await verifyHashChain(store, { pageSize: 4 }, (p) =>
      progress.push([p.eventsScanned, p.approximateTotal]),
    );
    expect(report).toMatchObject({
      ok: true,
      streamsChecked: 2,
      eventsChecked: 6,
      brokenCount: 0,
      broken: [],
    });
    expect(progress).toEqual([
      [4, 6],
      [6, 6],
    ]);
  });

  it('reports a changed event as broken and the rest of its stream as intact', async () => {
    const forged = tampered(store, (events) =>
      events.map((e) => (e.streamId === a && e.revision === 1 ? { ...e, data: { n: 11 } } : e)),
    );
    const report = await verifyHashChain(forged);
    expect(report.brokenCount).toBe(1);
    expect(report.firstBroken).toMatchObject({ streamId: a, revision: 1, reason: 'content' });
  });

  it('reports swapped events of a stream where the order breaks', async () => {
    const swapped = tampered(store, (events) => {
      const [first, second] = events.filter((e) => e.streamId === b);
      return events.map((e) =>
        e === first ? { ...second, revision: 0 } : e === second ? { ...first, revision: 1 } : e,
      );
    });
    const report = await verifyHashChain(swapped, { streamId: b });
    expect(report.firstBroken).toMatchObject({ streamId: b, revision: 0, reason: 'link' });
  });

  it('reports an event stripped of its hashes after hashed ones', async () => {
    const stripped = tampered(store, (events) =>
      events.map((e) =>
        e.streamId === a && e.revision === 3 ? { ...e, metadata: { ...meta(e), hash: undefined } } : e,
      ),
    );
    expect((await verifyHashChain(stripped)).firstBroken).toMatchObject({
      revision: 3,
      reason: 'missing-hash',
    });
  });

  it('trusts a gap hidden by retention, and reports it', async () => {
    await store.setStreamMetadata(b, { maxCount: 10 });
    const gap = tampered(store, (events) => events.filter((e) => !(e.streamId === b && e.revision === 0)));
    const report = await verifyHashChain(gap);
    expect(report.ok).toBe(true);
    expect(report.startedMidStream).toEqual([
      expect.objectContaining({ streamId: b, revision: 1, reason: 'head-expired' }),
    ]);
  });

  it('lists at most MAX_LISTED broken links and counts them all', async () => {
    const many = uniqueStream('v-many');
    await store.append(
      many,
      Array.from({ length: MAX_LISTED + 20 }, (_, i) => thing(i)),
      'no_stream',
    );
    const forged = tampered(store, (events) => events.map((e) => ({ ...e, type: 'Renamed' })));
    const report = await verifyHashChain(forged, { streamId: many });
    expect(report.broken).toHaveLength(MAX_LISTED);
    expect(report.brokenCount).toBe(MAX_LISTED + 20);
  });
});
