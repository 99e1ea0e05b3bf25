import { Position, RecordedOf } from '@hcn/contracts';
import type { RawAllPage } from './all-page';
import type { StoredRow } from './raw-read';
import { SharedTail, TailReader } from './shared-tail';
import type { TestEvent } from '../testing/test-events';

/** A stored row at (txid n, seq n) of a `thing-` stream. */
function row(n: number): StoredRow {
  return {
    seq: String(n),
    txid: String(n),
    event_id: `e${n}`,
    stream_id: `thing-${n}`,
    revision: 0,
    type: 'ThingHappened',
    recorded_at: new Date(0),
    data: { n },
    metadata: {},
    prev_hash: null,
    hash: null,
  };
}

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

/** A tail over a log whose reads return the rows queued in `pages`, one page per read. */
function tailOver(pages: StoredRow[][]) {
  const reads: Array<Position | undefined> = [];
  const read = async (after: Position | undefined): Promise<RawAllPage> => {
    reads.push(after);
    const rows = pages.shift() ?? [];
    const last = rows[rows.length - 1];
    const checkpoint = last ? at(Number(last.txid)) : after;
    return { rows, exhausted: true, checkpoint, horizon: 100n, heldBack: false };
  };
  const decode = (r: StoredRow) =>
    ({ eventId: r.event_id, position: at(Number(r.txid)) }) as RecordedOf<TestEvent>;
  const tail = new SharedTail<TestEvent>(read, decode, {
    readLimit: 100,
    maxRows: 1000,
    coalesceMs: 0,
    maxAgeMs: 1e9,
  });
  return { tail, reads };
}

const ids = (page: { events: Array<{ eventId: string }> } | undefined) => page?.events.map((e) => e.eventId);

/**
 * The shared tail's bookkeeping: which rows it keeps for whom. A follower is served from the tail as long as it
 * asks from a position the tail holds, and the rows it has not been handed yet are kept for it.
 */
describe('SharedTail', () => {
  it('serves several followers from one read and keeps the rows a follower has not been handed', async () => {
    const { tail, reads } = tailOver([[row(1), row(2)], [row(3)]]);
    const filter = { kind: 'streamPrefix' as const, prefixes: ['thing-'] };
    const [a, b, late]: TailReader[] = [{ filter }, { filter }, { filter }];
    [a, b, late].forEach((r) => tail.join(r));
    tail.startAt(at(0));
    expect(await tail.page(a, at(0), 10, 0n)).toBeUndefined(); // the first read widens the tail to their filter
    await new Promise((r) => setTimeout(r, 0));
    expect(ids(await tail.page(a, at(0), 10, 0n))).toEqual(['e1', 'e2']);
    expect(ids(await tail.page(b, at(0), 10, 0n))).toEqual(['e1', 'e2']);
    expect(reads).toHaveLength(1); // the read that widened the tail served a and b
    // new events: `late`, still at the start, finds its page stale, and the read it triggers must not drop rows
    // it was never handed (an earlier version counted the discarded stale page as handed and read on its own)
    tail.wake();
    expect(ids(await tail.page(late, at(0), 10, 0n))).toEqual(['e1', 'e2', 'e3']);
    expect(ids(await tail.page(a, at(2), 10, 0n))).toEqual(['e3']);
    expect(reads).toHaveLength(2);
  });

  it('sends a follower behind the rows kept to its own read, and one at the end of a page to the next rows', async () => {
    const { tail } = tailOver([[row(1), row(2), row(3)]]);
    const filter = { kind: 'streamPrefix' as const, prefixes: ['thing-'] };
    const reader: TailReader = { filter };
    tail.join(reader);
    tail.startAt(at(1));
    await tail.page(reader, at(1), 10, 0n); // widens the selection
    await new Promise((r) => setTimeout(r, 0));
    expect(await tail.page(reader, at(0), 10, 0n)).toBeUndefined(); // behind the tail's start
    const first = await tail.page(reader, at(1), 1, 0n);
    expect(ids(first)).toEqual(['e2']);
    expect(first?.exhausted).toBe(false);
    expect(ids(await tail.page(reader, first?.checkpoint, 1, 0n))).toEqual(['e3']);
  });
});
