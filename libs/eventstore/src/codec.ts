import {
  EventBody,
  EventMetadata,
  EventRegistry,
  NewEvent,
  Position,
  RecordedOf,
  eventIdSchema,
  eventMetadataSchema,
  parseOrThrow,
  rejectNul,
} from '@hcn/contracts';
import { z } from 'zod';
import { InvalidAppendError } from './errors';
import { canonicalJson, contentHashOfJson } from './hash-chain';
import { StoredMetadata, fullMetadata, storedMetadata, storedMetadataSchema } from './stored-metadata';
import type { ExpectedRevision } from './port';
import type { ValidatedContent } from './recent-writes';

/** An event validated and completed for storage, in its stored form (reads fill back what it leaves out). */
export interface PreparedEvent {
  readonly eventId: string;
  readonly type: string;
  /** The data without the values its schema fills back on read (`EventRegistry.storedForm`). */
  readonly data: unknown;
  readonly metadata: StoredMetadata;
  /** sha256 of the event's canonical content; adapters chain it into `metadata.prevHash` / `metadata.hash`. */
  readonly contentHash: string;
  /** Canonical JSON of `data` and of `metadata` as written (no links), made for the content hash; adapters may send it. */
  readonly json: { readonly data: string; readonly metadata: string };
}

/** A stored event as an adapter reads it, before validation. */
export interface RawEvent {
  readonly eventId: string;
  readonly type: string;
  readonly streamId: string;
  readonly revision: number;
  readonly position: Position;
  readonly recordedAt: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

const streamIdSchema = z
  .string()
  .min(1)
  .max(500)
  .refine((s) => !s.startsWith('$'), 'system streams cannot be written');

/** Checks the arguments of an append that every adapter shares. */
export function checkAppendRequest(
  streamId: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
): void {
  if (!streamIdSchema.safeParse(streamId).success) {
    throw new InvalidAppendError(`Invalid stream id: ${JSON.stringify(streamId)}`, { streamId });
  }
  if (events.length === 0) throw new InvalidAppendError('An append needs at least one event', { streamId });
  const exact = typeof expected === 'number';
  if (exact && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new InvalidAppendError(`Invalid expected revision ${expected}`, { streamId });
  }
  const ids = new Set(events.map((e) => e.eventId));
  if (ids.size !== events.length)
    throw new InvalidAppendError('Duplicate event ids in one append', { streamId });
}

/**
 * Validates envelope and data of each event against the registry, fills in the schema version, drops hash keys
 * a caller passed (only the store writes them), leaves out what reads fill back (`storedForm` of the data: its
 * schema's defaults; `storedMetadata`) and computes each event's content hash over that stored form.
 */
export function prepareEvents(registry: EventRegistry, events: readonly NewEvent[]): PreparedEvent[] {
  return events.map((event) => prepareEvent(registry, event).prepared);
}

/** One event as `prepareEvents` prepares it, with its content in full as validated (what a read of it returns). */
export function prepareEvent(
  registry: EventRegistry,
  event: NewEvent,
): { prepared: PreparedEvent; content: ValidatedContent } {
  parseOrThrow(eventIdSchema, event.eventId, 'EVENT.ID_INVALID', 'Event id');
  const schemaVersion = event.metadata.schemaVersion ?? registry.latestVersion(event.type);
  // Written metadata has no hash keys: the schema drops any a caller copied from a recorded event.
  const parsed = parseOrThrow(
    eventMetadataSchema,
    { ...event.metadata, schemaVersion },
    'EVENT.METADATA_INVALID',
    `Metadata of ${event.type}`,
  );
  const valid = registry.validate(event.type, schemaVersion, event.data);
  const data = registry.storedForm(event.type, schemaVersion, valid);
  const metadata = storedMetadata(parsed, data);
  const json = { data: canonicalJson(data), metadata: canonicalJson(metadata) };
  // a NUL is escaped as \u0000 in JSON; the walk (exact) runs only when that text is there at all
  if (json.data.includes('\\u0000')) rejectNul(data, 'EVENT.SCHEMA_INVALID', `Event ${event.type}`);
  if (json.metadata.includes('\\u0000'))
    rejectNul(metadata, 'EVENT.METADATA_INVALID', `Metadata of ${event.type}`);
  const contentHash = contentHashOfJson(event.eventId, event.type, json.data, json.metadata);
  return {
    prepared: { eventId: event.eventId, type: event.type, data, metadata, contentHash, json },
    content: { type: event.type, data: valid, metadata: parsed },
  };
}

/** A prepared event with its chain links in the metadata, as adapters that hash in TypeScript store it. */
export function withLinks(event: PreparedEvent, link: { prevHash: string; hash: string }): PreparedEvent {
  return { ...event, metadata: { ...event.metadata, prevHash: link.prevHash, hash: link.hash } };
}

/** The chain links of a stored event, where the adapter keeps them apart from its metadata. */
export interface StoredLinks {
  readonly prevHash: string;
  readonly hash: string;
}

/**
 * Validates a stored event on read and turns it into the port's envelope. The links (`prevHash`, `hash`) come
 * from `links` or else from the stored metadata; they are not validated here (the audit verifier checks them).
 * `validated`: the content this process validated when it appended the event, used instead of parsing it again.
 * The event is one of `E` because `registry` (which defines `E`) parsed its data with the schema of its type.
 */
export function decodeEvent<E extends EventBody>(
  registry: EventRegistry,
  raw: RawEvent,
  links?: StoredLinks,
  validated?: ValidatedContent,
): RecordedOf<E> {
  if (validated) return withContent<E>(raw, validated, links ?? linksIn(raw.metadata));
  const stored = parseOrThrow(
    storedMetadataSchema,
    raw.metadata,
    'EVENT.METADATA_INVALID',
    `Stored ${raw.type}`,
  );
  const data = registry.validate(raw.type, stored.schemaVersion ?? 1, raw.data);
  const written = fullMetadata(stored, data);
  const found = links ?? linksIn(raw.metadata);
  if (found) {
    // the metadata is a fresh object: setting the links on it is several times cheaper than copying it
    const metadata = written as { -readonly [K in keyof EventMetadata]: EventMetadata[K] };
    metadata.prevHash = found.prevHash;
    metadata.hash = found.hash;
  }
  // the one place a stored event gets its type: its data was just parsed with the schema of `raw.type`
  return { ...raw, data, metadata: written } as RecordedOf<E>;
}

/**
 * A stored event whose content this process validated when it appended it (see RecentWrites), nothing parsed
 * again. The content is taken once, so its metadata object is this event's own and gets the links set on it.
 */
function withContent<E extends EventBody>(
  raw: RawEvent,
  { data, metadata }: ValidatedContent,
  links: StoredLinks | undefined,
): RecordedOf<E> {
  if (links) {
    const written = metadata as { -readonly [K in keyof EventMetadata]: EventMetadata[K] };
    written.prevHash = links.prevHash;
    written.hash = links.hash;
  }
  return { ...raw, data, metadata } as RecordedOf<E>;
}

function linksIn(metadata: unknown): StoredLinks | undefined {
  const { prevHash, hash } = (metadata ?? {}) as { prevHash?: unknown; hash?: unknown };
  return typeof prevHash === 'string' && typeof hash === 'string' ? { prevHash, hash } : undefined;
}
