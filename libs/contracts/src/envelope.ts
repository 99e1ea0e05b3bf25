/** Position of an event in the global log (`$all`): ordered by (commit, prepare). */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Who caused an event: a user, an agent or the system itself. */
export interface Actor {
  readonly kind: 'user' | 'agent' | 'system';
  readonly id: string;
}

/** Metadata every event carries besides its data. */
export interface EventMetadata {
  /** The workload or request this event belongs to. */
  readonly correlationId: string;
  /** The event or command that caused this event. */
  readonly causationId: string;
  readonly actor: Actor;
  /** ISO-8601 instant at which the fact happened (passed in, never read from a clock in a decider). */
  readonly occurredAt: string;
  readonly schemaVersion: number;
  /** W3C trace context of the span that appended the event (only when tracing is on). */
  readonly traceparent?: string;
  /** Hash of the previous event of the stream (its `hash`, or the stream's genesis hash); set by the store. */
  readonly prevHash?: string;
  /** sha256(prevHash + content hash): this event's link in its stream's chain; set by the store. */
  readonly hash?: string;
}

/** An event about to be appended. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  /** UUID; appending the same id to the same stream twice is a no-op. */
  readonly eventId: string;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: Omit<EventMetadata, 'schemaVersion' | 'prevHash' | 'hash'> & {
    readonly schemaVersion?: number;
  };
}

/** An event as stored: the envelope of the architecture, with its stream, revision and global position. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly eventId: string;
  readonly type: Type;
  readonly streamId: string;
  /** Zero-based revision of the event within its stream. */
  readonly revision: number;
  readonly position: Position;
  /** When the store recorded it (ISO-8601). */
  readonly recordedAt: string;
  readonly data: Data;
  readonly metadata: EventMetadata;
}

/** An event's type and data: what deciders decide and folds read. */
export interface EventBody {
  readonly type: string;
  readonly data: unknown;
}

/** A recorded event of one of the kinds in `E`, its data typed by its type (a union over `E`'s types). */
export type RecordedOf<E extends EventBody> = E extends EventBody
  ? RecordedEvent<E['type'], E['data']>
  : never;

/** Renders a position as `commit/prepare`, the form checkpoints store. */
export function formatPosition(position: Position): string {
  return `${position.commit}/${position.prepare}`;
}

/** Parses `commit/prepare` back into a position. */
export function parsePosition(text: string): Position {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`Not a position: ${text}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

/** Orders two positions: negative when `a` comes first. */
export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
