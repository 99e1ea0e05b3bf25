import {
  EventBody,
  EventRegistry,
  HcnEvent,
  NewEvent,
  Position,
  RecordedOf,
  hcnEventRegistry,
} from '@hcn/contracts';
import { ScavengeResult, scavengeExpired } from './scavenge';
import { Client, Pool, PoolClient } from 'pg';
import { PreparedEvent, checkAppendRequest, decodeEvent, prepareEvent, prepareEvents } from '../codec';
import { RecentWrites } from '../recent-writes';
import type {
  AppendOutcome,
  AppendRequest,
  AppendResult,
  EventFilter,
  EventStore,
  ExpectedRevision,
  RawPage,
  ReadAllOptions,
  ReadRawOptions,
  ReadStreamOptions,
  StreamMetadata,
  SubscribeToAllOptions,
  Subscription,
} from '../port';
import { Page, PollingSettings, PollingSubscription } from '../polling-subscription';
import { appendEach } from '../revision';
import { migrateEventStore } from './migrate';
import { StaleTransactionError, translatePgError } from './pg-errors';
import { StoredRow, readRawPage, storedEvent } from './raw-read';
import { EVENT_COLUMNS, readAllPage, selectionOf } from './all-page';
import { SharedTail, TailReader } from './shared-tail';
import { AppendRow, appendTelling, sqlEventsJson, toAppendResult } from './append-sql';

export { appendWithClient } from './append-sql';

/** Settings of the PostgreSQL event store. */
export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  /** The schemas of the events the store holds (default: every HCN event); reads return those events. */
  readonly registry?: EventRegistry;
  readonly poolSize?: number;
  readonly polling?: Partial<PollingSettings>;
  /** Longest wait of readAll for transactions in flight at its start (read-your-writes); default 5000 ms. */
  readonly readAllWaitMs?: number;
}

/** Attempts of one append whose transaction id kept losing the race for its stream (see migration 4). */
const MAX_STALE_RETRIES = 20;
const READ_ALL_WINDOW = 5000;

type EventRow = StoredRow;

/**
 * Event store on PostgreSQL. Each event row carries its writer's transaction id (xid8); `$all` readers take
 * only rows below the oldest running transaction (`pg_snapshot_xmin`), ordered by (txid, seq), so no reader
 * skips an event whose transaction commits late. NOTIFY wakes subscribers; polling is the fallback.
 */
export class PostgresEventStore<E extends EventBody = HcnEvent> implements EventStore<E> {
  private readonly pool: Pool;
  private readonly registry: EventRegistry;
  private readonly polling: PollingSettings;
  private readonly subscriptions = new Set<PollingSubscription<E>>();
  private readonly readAllWaitMs: number;
  /** The end of `$all` read once for every subscription (see SharedTail). */
  private readonly tail: SharedTail<E>;
  /** What this process appended lately, for its own reads of it (see RecentWrites). */
  private readonly written = new RecentWrites();
  private listener: Client | undefined;
  private closed = false;

  private constructor(private readonly options: PostgresEventStoreOptions) {
    this.pool = new Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
    this.pool.on('error', () => undefined);
    // A connection the server ends (a restart) while checked out but between queries would emit an unhandled
    // 'error' and end the process; queries in flight still fail with it, and the pool replaces the client.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.registry = options.registry ?? hcnEventRegistry;
    this.readAllWaitMs = options.readAllWaitMs ?? 5000;
    this.polling = {
      pageSize: 1000,
      pollIntervalMs: 500,
      retryDelayMs: 250,
      coalesceMs: 20,
      ...options.polling,
    };
    this.tail = new SharedTail<E>(
      (after, selection, limit) =>
        readAllPage((sql, params) => this.query(sql, params), after, selection, limit),
      (row) => this.decode(row),
      {
        readLimit: 2000,
        maxRows: 20_000,
        coalesceMs: this.polling.coalesceMs ?? 0,
        maxAgeMs: this.polling.pollIntervalMs / 2,
      },
    );
  }

  /** How many pages of `$all` the subscriptions' shared tail has read (diagnostics). */
  get sharedTailReads(): number {
    return this.tail.reads;
  }

  /** Connects, applies migrations and returns a ready store. */
  static async connect<E extends EventBody = HcnEvent>(
    options: PostgresEventStoreOptions,
  ): Promise<PostgresEventStore<E>> {
    const store = new PostgresEventStore<E>(options);
    try {
      await migrateEventStore(store.pool);
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw translatePgError(error, '(migrate)', 'any');
    }
    return store;
  }

  async append(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    checkAppendRequest(streamId, events, expected);
    const made = events.map((event) => prepareEvent(this.registry, event));
    const prepared = made.map((m) => m.prepared);
    for (let attempt = 1; ; attempt++) {
      const client = await this.checkout();
      try {
        const { result, stored } = await appendTelling(client, streamId, prepared, expected);
        if (stored) this.keepWritten(made);
        return result;
      } catch (error) {
        if (!(error instanceof StaleTransactionError) || attempt >= MAX_STALE_RETRIES) throw error;
      } finally {
        client.release();
      }
    }
  }

  /**
   * Appends to many streams in one transaction and one round trip. When any request is refused, the
   * transaction rolls back and each request is retried alone, so every request gets its own outcome. A single
   * request is a plain append (no batch payload to build and unpack).
   */
  async appendMany(requests: readonly AppendRequest[]): Promise<AppendOutcome[]> {
    if (requests.length === 0) return [];
    const oneByOne = (): Promise<AppendOutcome[]> =>
      appendEach((r) => this.append(r.streamId, r.events, r.expectedRevision), requests, 4);
    if (requests.length === 1) return oneByOne();
    let payload: string;
    const made: Array<ReturnType<typeof prepareEvent>> = [];
    try {
      payload = `[${requests
        .map((r) => {
          checkAppendRequest(r.streamId, r.events, r.expectedRevision);
          const these = r.events.map((event) => prepareEvent(this.registry, event));
          made.push(...these);
          const events = sqlEventsJson(these.map((m) => m.prepared));
          const expected = JSON.stringify(String(r.expectedRevision));
          return `{"stream":${JSON.stringify(r.streamId)},"expected":${expected},"events":${events}}`;
        })
        .join(',')}]`;
    } catch {
      return oneByOne();
    }
    try {
      const rows = await this.query<AppendRow & { out_index: number }>(
        `SELECT out_index, out_revision, out_txid::text, out_seq::text FROM ${batchFunction(requests)}($1::jsonb)`,
        [payload],
      );
      const outcomes: AppendOutcome[] = new Array(requests.length);
      for (const row of rows) outcomes[row.out_index] = { ok: true, result: toAppendResult(row) };
      this.keepWritten(made);
      return outcomes;
    } catch {
      return oneByOne();
    }
  }

  /** Validates events for an append made later with `appendWithClient` inside a caller's transaction. */
  prepare(events: readonly NewEvent[]): PreparedEvent[] {
    return prepareEvents(this.registry, events);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<Array<RecordedOf<E>>> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const sql = `SELECT ${EVENT_COLUMNS} FROM hcn_events e JOIN hcn_streams s ON s.stream_id = e.stream_id
      WHERE e.stream_id = $1 AND e.revision ${backwards ? '<=' : '>='} $2
        AND (s.max_count IS NULL OR e.revision > s.revision - s.max_count)
        AND (s.max_age_s IS NULL OR e.recorded_at >= now() - make_interval(secs => s.max_age_s))
      ORDER BY e.revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`;
    const rows = await this.query<EventRow>(sql, [streamId, from, options.maxCount ?? null]);
    return rows.map((row) => this.decode(row));
  }

  async readAll(options: ReadAllOptions = {}): Promise<Array<RecordedOf<E>>> {
    const wanted = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const events: Array<RecordedOf<E>> = [];
    let cursor = options.after;
    await this.awaitInFlightTransactions();
    for (;;) {
      // unfiltered, every row scanned is returned (system events aside): a page need not scan more than is wanted
      const limit = options.filter ? READ_ALL_WINDOW : Math.min(READ_ALL_WINDOW, wanted - events.length);
      const page = await this.readPage(cursor, options.filter, limit);
      events.push(...page.events.slice(0, wanted - events.length));
      if (page.exhausted || events.length >= wanted || !page.checkpoint) return events;
      cursor = page.checkpoint;
    }
  }

  /** Raw pages; a page of `$all` first waits (as readAll does) for the transactions in flight when it is asked. */
  async readRaw(options: ReadRawOptions): Promise<RawPage> {
    if (options.streamId === undefined) await this.awaitInFlightTransactions();
    return readRawPage((sql, params) => this.query(sql, params), options);
  }

  subscribeToAll(options: SubscribeToAllOptions<E>): Subscription {
    if (this.closed) throw new Error('Event store is closed');
    // Caught up means: everything committed before the subscription started has been read, i.e. the horizon
    // has passed every transaction id that was assigned then.
    let target: bigint | undefined;
    const reader: TailReader = { filter: options.filter };
    const source = {
      readPage: async (
        after: Position | undefined,
        filter: EventFilter | undefined,
        limit: number,
      ): Promise<Page<E>> => {
        target ??= await this.nextTransactionId();
        const shared = await this.tail.page(reader, after, limit, target);
        const page = shared ?? (await this.readPage(after, filter, limit));
        // a follower's own read that reached the end of the log starts the shared tail there
        if (!shared && page.exhausted) this.tail.startAt(page.checkpoint ?? after);
        return { ...page, complete: page.horizon >= target };
      },
    };
    const settings = options.pageSize ? { ...this.polling, pageSize: options.pageSize } : this.polling;
    const subscription = new PollingSubscription(source, options, settings, (s) => {
      this.subscriptions.delete(s);
      this.tail.leave(reader);
    });
    this.subscriptions.add(subscription);
    this.tail.join(reader);
    void this.ensureListener();
    return subscription;
  }

  /** Deletes the stored events retention hides (see `scavengeExpired`); reads answer the same before and after. */
  scavenge(onProgress?: (done: ScavengeResult, total: number) => void): Promise<ScavengeResult> {
    return scavengeExpired(this.pool, onProgress);
  }

  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    await this.query(
      `INSERT INTO hcn_streams (stream_id, max_age_s, max_count) VALUES ($1, $2, $3)
       ON CONFLICT (stream_id) DO UPDATE SET max_age_s = EXCLUDED.max_age_s, max_count = EXCLUDED.max_count`,
      [streamId, metadata.maxAge ?? null, metadata.maxCount ?? null],
    );
  }

  async getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    const rows = await this.query<{ max_age_s: string | null; max_count: string | null }>(
      'SELECT max_age_s, max_count FROM hcn_streams WHERE stream_id = $1',
      [streamId],
    );
    const row = rows[0];
    const metadata: { maxAge?: number; maxCount?: number } = {};
    if (row?.max_age_s != null) metadata.maxAge = Number(row.max_age_s);
    if (row?.max_count != null) metadata.maxCount = Number(row.max_count);
    return metadata;
  }

  async approximateEventCount(): Promise<number> {
    const rows = await this.query<{ n: string }>('SELECT count(*) AS n FROM hcn_events');
    return Number(rows[0].n);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  /** One page of `$all` below the transaction horizon (see readAllPage), its events validated. */
  async readPage(
    after: Position | undefined,
    filter: EventFilter | undefined,
    limit: number,
  ): Promise<Page<E> & { horizon: bigint }> {
    const page = await readAllPage(
      (sql, params) => this.query(sql, params),
      after,
      selectionOf(filter),
      limit,
    );
    const { rows, ...rest } = page;
    return { ...rest, events: rows.map((row) => this.decode(row)) };
  }

  /**
   * Read-your-writes for readAll: waits (bounded by `readAllWaitMs`) until every transaction that was running
   * when the call began has ended, so the horizon covers everything committed before the call.
   */
  /** The first transaction id not yet assigned (xmax of a snapshot taken now). */
  private async nextTransactionId(): Promise<bigint> {
    const rows = await this.query<{ x: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x');
    return BigInt(rows[0].x);
  }

  private async awaitInFlightTransactions(): Promise<void> {
    const rows = await this.query<{ xmin: string; xmax: string }>(
      'SELECT pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax FROM pg_current_snapshot() s',
    );
    const target = BigInt(rows[0].xmax);
    let horizon = BigInt(rows[0].xmin);
    const deadline = Date.now() + this.readAllWaitMs;
    while (horizon < target && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const next = await this.query<{ h: string }>(
        'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS h',
      );
      horizon = BigInt(next[0].h);
    }
  }

  private decode(row: EventRow): RecordedOf<E> {
    const raw = storedEvent(row, row.metadata);
    const links =
      row.prev_hash !== null && row.hash !== null ? { prevHash: row.prev_hash, hash: row.hash } : undefined;
    return decodeEvent<E>(this.registry, raw, links, this.written.take(row.event_id, row.type));
  }

  /** Keeps the content of events this store just stored, for its own reads of them. */
  private keepWritten(made: ReadonlyArray<ReturnType<typeof prepareEvent>>): void {
    this.written.keep(made.map((m) => ({ eventId: m.prepared.eventId, content: m.content })));
  }

  private async query<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query(sql, params)).rows as R[];
    } catch (error) {
      throw translatePgError(error, '(query)', 'any');
    }
  }

  private async checkout(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw translatePgError(error, '(connect)', 'any');
    }
  }

  private async ensureListener(): Promise<void> {
    if (this.listener || this.closed) return;
    const listener = new Client({ connectionString: this.options.connectionString });
    this.listener = listener;
    const drop = (): void => {
      if (this.listener === listener) this.listener = undefined;
      listener.end().catch(() => undefined);
      if (!this.closed && this.subscriptions.size > 0)
        setTimeout(() => void this.ensureListener(), 1000).unref();
    };
    listener.on('notification', () => {
      this.tail.wake();
      this.subscriptions.forEach((s) => s.wake());
    });
    listener.on('error', drop);
    try {
      await listener.connect();
      await listener.query('LISTEN hcn_events');
    } catch {
      drop();
    }
  }
}

/**
 * The SQL function for one appendMany: `hcn_append_set` (a fixed number of statements) when every stream is
 * distinct, unless every request is one event on any revision, the heartbeats' shape, for which
 * `hcn_append_many` has a leaner single statement; `hcn_append_many` also takes a stream more than once.
 */
function batchFunction(requests: readonly AppendRequest[]): 'hcn_append_set' | 'hcn_append_many' {
  if (requests.every((r) => r.expectedRevision === 'any' && r.events.length === 1)) return 'hcn_append_many';
  const streams = new Set(requests.map((r) => r.streamId));
  return streams.size === requests.length ? 'hcn_append_set' : 'hcn_append_many';
}
