import type { EventBody, HcnEvent, NewEvent, Position, RecordedOf } from '@hcn/contracts';
import type { RawEvent } from './codec';

/** DI token of the EventStore port. */
export const EVENT_STORE = Symbol('EVENT_STORE');

/** Expected state of a stream for an append: EventStoreDB's semantics. */
export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | number;

/** Outcome of an append: the stream's new revision and the global position of its last event. */
export interface AppendResult {
  readonly nextExpectedRevision: number;
  readonly position: Position;
}

/** One stream's part of an appendMany. */
export interface AppendRequest {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedRevision: ExpectedRevision;
}

/** Outcome of one request of an appendMany: its result, or the error that refused it. */
export type AppendOutcome =
  { readonly ok: true; readonly result: AppendResult } | { readonly ok: false; readonly error: Error };

/** Options of a stream read. */
export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  /** Inclusive start revision; default: start (forwards) or end (backwards). */
  readonly fromRevision?: number;
  readonly maxCount?: number;
}

/** Server-side filter of `$all` reads and subscriptions; system events (`$...`) are always excluded. */
export type EventFilter =
  | { readonly kind: 'streamPrefix'; readonly prefixes: readonly string[] }
  | { readonly kind: 'eventTypePrefix'; readonly prefixes: readonly string[] };

/** Options of a `$all` read. */
export interface ReadAllOptions {
  /** Exclusive start position; default: the beginning of the log. */
  readonly after?: Position;
  readonly maxCount?: number;
  readonly filter?: EventFilter;
}

/** Options of a catch-up subscription to `$all` of a store holding the events `E`. */
export interface SubscribeToAllOptions<E extends EventBody = HcnEvent> {
  /** Exclusive start position; default: the beginning of the log. */
  readonly after?: Position;
  readonly filter?: EventFilter;
  /** Called for each matching event, in order; the next one waits for the returned promise. */
  readonly onEvent: (event: RecordedOf<E>) => Promise<void> | void;
  /** Called with a position up to which everything (also filtered-out events) has been seen. */
  readonly onCheckpoint?: (position: Position) => Promise<void> | void;
  /** Called once when the subscription has read everything committed so far. */
  readonly onCaughtUp?: () => void;
  /** Called when a handler or the store fails; the subscription stops after a handler failure. */
  readonly onError?: (error: Error) => void;
  /**
   * Hint for polling adapters: read at most once per this many milliseconds, so that under a stream of appends one
   * read serves many (a wake-up after a quiet spell is read at once). Followers that need not react within
   * milliseconds pass more than the adapter's default; push adapters ignore it.
   */
  readonly coalesceMs?: number;
  /** Hint for polling adapters: rows scanned per page; bulk readers (reports, rebuilds) pass more than the default. */
  readonly pageSize?: number;
}

/** A store of any registry's events, for code that does not read their data (integrity checks, the command engine). */
export type AnyEventStore = EventStore<EventBody>;

/** A running subscription. */
export interface Subscription {
  /** Stops delivery; resolves when the handler in flight (if any) has finished. */
  stop(): Promise<void>;
}

/** Retention settings of a stream, honoured by reads (EventStoreDB's `$maxAge` and `$maxCount`). */
export interface StreamMetadata {
  /** Seconds after which events are no longer returned. */
  readonly maxAge?: number;
  /** Only the newest `maxCount` events are returned. */
  readonly maxCount?: number;
}

/** Options of a raw read (integrity checks): all of `$all`, or one stream, after an exclusive position. */
export interface ReadRawOptions {
  /** Only this stream; default: every non-system stream. */
  readonly streamId?: string;
  /** Exclusive start position; default: the beginning. */
  readonly after?: Position;
  /** How many stored events to scan at most (the page's window). */
  readonly maxCount: number;
}

/** A page of a raw read: the retained events scanned, where to go on from, and whether the end was reached. */
export interface RawPage {
  readonly events: RawEvent[];
  readonly checkpoint?: Position;
  readonly exhausted: boolean;
}

/**
 * The event store port: append-only streams plus a global, ordered log (`$all`). Reads return the events `E` (by
 * default every HCN event), typed by their type: the store validated each against its schema.
 */
export interface EventStore<E extends EventBody = HcnEvent> {
  /** Appends all events or none; idempotent on event ids already in this stream. */
  append(
    streamId: string,
    events: readonly NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult>;
  /**
   * Appends to many streams at once (e.g. heartbeats of many nodes); each request is all-or-nothing on its own
   * and gets its own outcome, in request order. Adapters may commit them together for throughput.
   */
  appendMany(requests: readonly AppendRequest[]): Promise<AppendOutcome[]>;
  /** Reads a stream; a missing stream reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<Array<RecordedOf<E>>>;
  /** Reads `$all` forwards from an exclusive position. */
  readAll(options?: ReadAllOptions): Promise<Array<RecordedOf<E>>>;
  /**
   * Reads stored events exactly as held (no schema validation), in position order, hiding what retention hides,
   * for integrity checks such as the audit hash-chain verifier. System events are excluded.
   */
  readRaw(options: ReadRawOptions): Promise<RawPage>;
  /** Catch-up subscription: every committed matching event after `after`, exactly once, in order. */
  subscribeToAll(options: SubscribeToAllOptions<E>): Subscription;
  /** Sets a stream's retention metadata (the stream need not exist yet). */
  setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void>;
  /** Reads a stream's retention metadata; empty when none was set. */
  getStreamMetadata(streamId: string): Promise<StreamMetadata>;
  /** Rough number of events in `$all`, for progress bars; undefined when the backend cannot tell cheaply. */
  approximateEventCount?(): Promise<number | undefined>;
  /** Releases connections; stops subscriptions. */
  close(): Promise<void>;
}
