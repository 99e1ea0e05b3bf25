import { EventBody, Position, RecordedOf, comparePositions } from '@hcn/contracts';
import { matchesFilter } from '../filter';
import type { Page } from '../polling-subscription';
import type { EventFilter } from '../port';
import type { RawAllPage, Selection } from './all-page';
import { selectionOf } from './all-page';
import type { StoredRow } from './raw-read';

/** Settings of a shared tail. */
export interface SharedTailSettings {
  /** Rows scanned per read of the tail. */
  readonly readLimit: number;
  /** Most rows kept; a follower behind the oldest reads on its own. */
  readonly maxRows: number;
  /** Least time between two reads of the tail (a burst of wake-ups is one read). */
  readonly coalesceMs: number;
  /** A tail older than this is read again before a follower at its end is told it has seen everything. */
  readonly maxAgeMs: number;
}

/** One follower of the tail: its filter and the position it last asked from. */
export interface TailReader {
  readonly filter: EventFilter | undefined;
  after?: Position;
}

/**
 * A row of the tail, decoded once for every follower on first use; the stored row is dropped once decoded, so the
 * tail holds one copy of each event.
 */
interface TailRow<E extends EventBody> {
  readonly position: Position;
  readonly type: string;
  readonly streamId: string;
  row?: StoredRow;
  event?: RecordedOf<E>;
}

/** A page served from the tail, with the horizon it was read below. */
export type TailPage<E extends EventBody> = Page<E> & { horizon: bigint };

/** `a` strictly before `b`, undefined being the start of the log. */
function before(a: Position | undefined, b: Position | undefined): boolean {
  if (!b) return false;
  return !a || comparePositions(a, b) < 0;
}

/** True when every event `filter` selects is in `selection` (undefined: every event). */
function covers(selection: Selection | undefined, filter: EventFilter | undefined): boolean {
  if (!selection) return true;
  if (!filter) return false;
  const held = filter.kind === 'streamPrefix' ? selection.streamPrefixes : selection.typePrefixes;
  return filter.prefixes.every((p) => held.some((q) => p.startsWith(q)));
}

/** The union of two selections. */
function union(a: Selection | undefined, b: Selection | undefined): Selection | undefined {
  if (!a || !b) return undefined;
  const merge = (x: readonly string[], y: readonly string[]) => [...new Set([...x, ...y])];
  return {
    streamPrefixes: merge(a.streamPrefixes, b.streamPrefixes),
    typePrefixes: merge(a.typePrefixes, b.typePrefixes),
  };
}

/**
 * The end of `$all` read once for every subscription of a store. Each follower used to page through the log on its
 * own (a query, its rows parsed and every matching event validated, per follower per poll); the tail reads the
 * union of their filters once per wake-up, keeps the rows in log order and serves each follower's page from them,
 * decoding each event once. A follower behind the oldest row kept (catching up from a checkpoint) reads on its own
 * until it reaches the tail. Pages keep the store's semantics: a follower is told it has seen everything only by a
 * read that started after its last wake-up (or younger than `maxAgeMs`), so no event is skipped; positions and
 * checkpoints are the ones the follower's own read would have given.
 */
export class SharedTail<E extends EventBody> {
  private readonly readers = new Set<TailReader>();
  private rows: Array<TailRow<E>> = [];
  /** Whether the tail holds a range; it starts where a follower's own read first reached the end of the log. */
  private active = false;
  /** The tail holds every selected row in (from, to]. */
  private from: Position | undefined;
  private to: Position | undefined;
  private selection: Selection | undefined = { streamPrefixes: [], typePrefixes: [] };
  private horizon = 0n;
  private exhausted = false;
  private heldBack = false;
  private generation = 0;
  private readGeneration = -1;
  private readAt = 0;
  private reading: Promise<void> | undefined;
  /** Reads of the tail so far (diagnostics and specs). */
  reads = 0;

  constructor(
    private readonly read: (
      after: Position | undefined,
      selection: Selection | undefined,
      limit: number,
    ) => Promise<RawAllPage>,
    private readonly decode: (row: StoredRow) => RecordedOf<E>,
    private readonly settings: SharedTailSettings,
  ) {}

  /** Adds a follower; it is served once it asks from a position the tail holds. */
  join(reader: TailReader): void {
    this.readers.add(reader);
  }

  /** Removes a follower. */
  leave(reader: TailReader): void {
    this.readers.delete(reader);
  }

  /** New events may be readable (NOTIFY): the next follower at the end reads the tail again. */
  wake(): void {
    this.generation++;
  }

  /** Starts the tail at `position` (the end of a follower's own read) when it holds no range yet. */
  startAt(position: Position | undefined): void {
    if (this.active) return;
    this.active = true;
    this.from = position;
    this.to = position;
  }

  /**
   * The reader's next page from `after` (at most `limit` events), or undefined when the tail does not hold that
   * position or filter and the reader must read on its own. `minHorizon`: a page whose read is below it is stale.
   */
  async page(
    reader: TailReader,
    after: Position | undefined,
    limit: number,
    minHorizon: bigint,
  ): Promise<TailPage<E> | undefined> {
    reader.after = after;
    if (!this.active || before(after, this.from)) return undefined;
    if (!covers(this.selection, reader.filter)) {
      void this.refresh().catch(() => undefined); // the next read widens the selection to the reader's filter
      return undefined;
    }
    const served = this.serve(reader, after, limit);
    if (served && !(served.atEnd && this.stale(minHorizon))) return this.handedOut(reader, served.page);
    await this.refresh();
    if (!this.holds(reader, after)) return undefined;
    const page = this.serve(reader, after, limit)?.page;
    return page && this.handedOut(reader, page);
  }

  /** The reader asks from the page's checkpoint next: the rows before it need not be kept for it (see trim). */
  private handedOut(reader: TailReader, page: TailPage<E>): TailPage<E> {
    if (page.checkpoint) reader.after = page.checkpoint;
    return page;
  }

  private holds(reader: TailReader, after: Position | undefined): boolean {
    return this.active && !before(after, this.from) && covers(this.selection, reader.filter);
  }

  private stale(minHorizon: bigint): boolean {
    return (
      !this.exhausted ||
      this.heldBack ||
      this.readGeneration !== this.generation ||
      this.horizon < minHorizon ||
      Date.now() - this.readAt > this.settings.maxAgeMs
    );
  }

  /** Events after `after` matching the reader's filter; undefined when `after` is past the tail's end. */
  private serve(
    reader: TailReader,
    after: Position | undefined,
    limit: number,
  ): { page: TailPage<E>; atEnd: boolean } | undefined {
    if (before(this.to, after)) return undefined;
    const events: Array<RecordedOf<E>> = [];
    let i = this.firstAfter(after);
    for (; i < this.rows.length && events.length < limit; i++) {
      const entry = this.rows[i];
      if (!matchesFilter(reader.filter, entry.type, entry.streamId)) continue;
      events.push(this.decoded(entry));
    }
    const atEnd = i >= this.rows.length;
    const checkpoint = atEnd ? this.to : events[events.length - 1].position;
    const exhausted = atEnd && this.exhausted;
    const page = {
      events,
      checkpoint,
      exhausted,
      horizon: this.horizon,
      heldBack: exhausted && this.heldBack,
    };
    return { page, atEnd };
  }

  private decoded(entry: TailRow<E>): RecordedOf<E> {
    if (!entry.event) {
      entry.event = this.decode(entry.row!);
      entry.row = undefined;
    }
    return entry.event;
  }

  /** Index of the first row after `position` (binary search; rows are in log order). */
  private firstAfter(position: Position | undefined): number {
    if (!position) return 0;
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePositions(this.rows[mid].position, position) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** One read of the tail at a time; callers arriving meanwhile share it. */
  private refresh(): Promise<void> {
    this.reading ??= this.readTail().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readTail(): Promise<void> {
    const wait = this.readAt + this.settings.coalesceMs - Date.now();
    if (wait > 0 && this.exhausted) await new Promise((r) => setTimeout(r, wait));
    let wanted: Selection | undefined = { streamPrefixes: [], typePrefixes: [] };
    for (const reader of this.readers) wanted = union(wanted, selectionOf(reader.filter));
    if (![...this.readers].every((r) => covers(this.selection, r.filter))) {
      // a follower the tail does not cover: start again at its end, reading what every follower selects
      this.selection = union(this.selection, wanted);
      this.rows = [];
      this.from = this.to;
    }
    const generation = this.generation;
    const readAt = Date.now();
    const page = await this.read(this.to, this.selection, this.settings.readLimit);
    this.reads++;
    for (const row of page.rows) {
      const position = { commit: BigInt(row.txid), prepare: BigInt(row.seq) };
      this.rows.push({ position, type: row.type, streamId: row.stream_id, row });
    }
    if (page.checkpoint && before(this.to, page.checkpoint)) this.to = page.checkpoint;
    this.exhausted = page.exhausted;
    this.heldBack = page.heldBack;
    this.horizon = page.horizon;
    this.readGeneration = generation;
    this.readAt = readAt;
    this.trim();
  }

  /** Drops the rows every follower at the tail has passed, and the oldest beyond `maxRows`. */
  private trim(): void {
    let oldest: Position | undefined = this.to;
    for (const reader of this.readers) {
      if (!before(reader.after, this.from) && before(reader.after, oldest)) oldest = reader.after;
    }
    let drop = this.firstAfter(oldest);
    drop = Math.max(drop, this.rows.length - this.settings.maxRows);
    if (drop <= 0) return;
    this.from = this.rows[drop - 1].position;
    this.rows = this.rows.slice(drop);
  }
}
