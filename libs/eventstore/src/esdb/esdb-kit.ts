/** Which way a read goes (the gRPC clients' FORWARDS / BACKWARDS). */
export type EsdbDirection = 'forwards' | 'backwards';

/** A position in `$all`. */
export interface EsdbPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Expected revision of an append (the clients' ANY / NO_STREAM / STREAM_EXISTS or an exact one). */
export type EsdbExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** The parts of a recorded event the adapter reads. */
export interface EsdbRecorded {
  readonly id: string;
  readonly type: string;
  readonly streamId: string;
  readonly revision: bigint;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata?: unknown;
  readonly position?: EsdbPosition;
}

/** A read or subscription item: the event, absent for links to deleted events. */
export interface EsdbResolved {
  readonly event?: EsdbRecorded;
}

/** A live `$all` subscription. */
export interface EsdbAllSubscription extends AsyncIterable<EsdbResolved> {
  once(event: 'caughtUp', listener: () => void): unknown;
  unsubscribe(): Promise<void>;
}

/** Options of a stream read. */
export interface EsdbReadStreamOptions {
  readonly direction: EsdbDirection;
  readonly fromRevision: bigint | 'start' | 'end';
  readonly maxCount?: number | bigint;
}

/**
 * What the adapter uses of a gRPC client (EventStoreDBClient of `@eventstore/db-client` or KurrentDBClient of
 * `@kurrent/kurrentdb-client`, whose API is the same): both are checked against it where they are wrapped.
 */
export interface EsdbClient {
  /** `events`: made by the same kit's jsonEvent (typed never: opaque, each library has its own event type). */
  appendToStream(
    streamId: string,
    events: never[],
    options: { expectedRevision: EsdbExpectedRevision },
  ): Promise<{ nextExpectedRevision: bigint; position?: EsdbPosition }>;
  readStream(streamId: string, options: EsdbReadStreamOptions): AsyncIterable<EsdbResolved>;
  readAll(options: {
    fromPosition?: EsdbPosition | 'start' | 'end';
    direction?: EsdbDirection;
  }): AsyncIterable<EsdbResolved>;
  /** `filter`: made by the same kit (opaque, as events). */
  subscribeToAll(options: {
    fromPosition?: EsdbPosition | 'start' | 'end';
    filter?: never;
  }): EsdbAllSubscription;
  setStreamMetadata(streamId: string, metadata: { maxAge?: number; maxCount?: number }): Promise<unknown>;
  getStreamMetadata(
    streamId: string,
  ): Promise<{ metadata?: { maxAge?: number; maxCount?: number } | null | undefined }>;
  dispose(): Promise<void>;
}

/** Settings of a subscription filter: the checkpoint callback with its interval. */
export interface EsdbFilterOptions {
  readonly checkpointInterval: number;
  readonly checkpointReached?: (subscription: unknown, position: EsdbPosition) => void | Promise<void>;
}

/** A filter on stream-name or event-type prefixes. */
export interface EsdbPrefixFilterOptions extends EsdbFilterOptions {
  readonly prefixes: string[];
}

/** A client library behind the EventStoreDB adapter: how to connect, build events and filters, read its errors. */
export interface EsdbKit {
  /** The library, for messages: `@eventstore/db-client` or `@kurrent/kurrentdb-client`. */
  readonly library: string;
  connect(connectionString: string): EsdbClient;
  /** A JSON event as the client appends it. */
  jsonEvent(event: { id: string; type: string; data: Record<string, unknown>; metadata: unknown }): never;
  excludeSystemEvents(options: EsdbFilterOptions): never;
  streamNameFilter(options: EsdbPrefixFilterOptions): never;
  eventTypeFilter(options: EsdbPrefixFilterOptions): never;
  isStreamNotFound(error: unknown): boolean;
  /** The stream's actual revision when `error` is the client's wrong-expected-version error, else undefined. */
  wrongExpectedVersion(error: unknown): { actualVersion: bigint | string } | undefined;
}

/** Connection-string schemes each client library takes (`EVENTSTORE_URL` picks the library by its scheme). */
export const ESDB_URL_SCHEMES = {
  eventstoredb: ['esdb', 'esdb+discover'],
  kurrentdb: ['kurrentdb', 'kurrentdb+discover', 'kurrent', 'kurrent+discover', 'kdb', 'kdb+discover'],
} as const;

/** The client library an EventStoreDB/KurrentDB connection string asks for, by its scheme; undefined if neither. */
export function esdbClientFor(connectionString: string): keyof typeof ESDB_URL_SCHEMES | undefined {
  const scheme = /^([a-z+]+):\/\//i.exec(connectionString.trim())?.[1]?.toLowerCase();
  if (!scheme) return undefined;
  for (const [client, schemes] of Object.entries(ESDB_URL_SCHEMES) as Array<
    [keyof typeof ESDB_URL_SCHEMES, readonly string[]]
  >)
    if (schemes.includes(scheme)) return client;
  return undefined;
}
