import { PreparedEvent, withLinks } from '../codec';
import { fullMetadata } from '../stored-metadata';
import { foldChain, genesisHash } from '../hash-chain';
import type { ExpectedRevision } from '../port';
import type { EsdbClient, EsdbExpectedRevision, EsdbKit, EsdbReadStreamOptions } from './esdb-kit';

/** A connected client and the kit it came from. */
export interface EsdbConnection {
  readonly kit: EsdbKit;
  readonly client: EsdbClient;
}

/** Attempts of an append whose caller did not name a revision ('any') and kept losing the race for its stream. */
const MAX_RACE_RETRIES = 20;

/** The newest visible event of a stream: its revision (-1: none visible) and its hash. */
interface Head {
  readonly revision: number;
  readonly hash?: string;
  /** Ids of the last few events, to recognise a retried 'any' append. */
  readonly recentIds: ReadonlySet<string>;
}

/** Outcome of EventStoreDB's appendToStream that the adapter reads. */
export interface EsdbAppended {
  readonly nextExpectedRevision: bigint;
  readonly position?: { commit: bigint; prepare: bigint };
}

/**
 * Appends with hash-chain links. EventStoreDB has no server-side hashing, so the chain is computed here from
 * the stream's last event and appended with that exact revision, making the link atomic with the append: a
 * concurrent writer makes it fail, and an append whose caller said 'any' or 'stream_exists' is retried on fresh
 * state. An exact or 'no_stream' expectation is passed on as given (EventStoreDB checks it and handles retried
 * appends). When a stream's events have all expired, the next link starts from its genesis hash; the verifier
 * trusts the first retained event's prevHash in that case. NOT run against a live server in this project.
 */
export async function appendChained(
  db: EsdbConnection,
  streamId: string,
  events: readonly PreparedEvent[],
  expected: ExpectedRevision,
): Promise<EsdbAppended> {
  if (expected === 'no_stream') return write(db, streamId, events, genesisHash(streamId), 'no_stream');
  if (typeof expected === 'number') {
    const prev = await hashAt(db, streamId, expected);
    return write(db, streamId, events, prev ?? genesisHash(streamId), BigInt(expected));
  }
  for (let attempt = 1; ; attempt++) {
    const head = await readHead(db, streamId, events.length + 16);
    if (head.recentIds.has(events[0].eventId))
      return write(db, streamId, events, genesisHash(streamId), 'any');
    const revision = expectedFor(head, expected);
    try {
      return await write(db, streamId, events, head.hash ?? genesisHash(streamId), revision);
    } catch (error) {
      const conflict = db.kit.wrongExpectedVersion(error);
      if (!conflict || attempt >= MAX_RACE_RETRIES) throw error;
      const actual = conflict.actualVersion;
      if (head.revision < 0 && typeof actual === 'bigint' && (await isHidden(db, streamId))) {
        // Every event expired: chain on from the genesis hash at the stream's real revision.
        return write(db, streamId, events, genesisHash(streamId), actual);
      }
    }
  }
}

function expectedFor(head: Head, expected: 'any' | 'stream_exists'): EsdbExpectedRevision {
  if (head.revision >= 0) return BigInt(head.revision);
  return expected === 'any' ? 'no_stream' : 'stream_exists';
}

async function write(
  db: EsdbConnection,
  streamId: string,
  events: readonly PreparedEvent[],
  prev: string,
  expectedRevision: EsdbExpectedRevision,
): Promise<EsdbAppended> {
  const links = foldChain(
    prev,
    events.map((e) => e.contentHash),
  );
  const payload = events.map((event, i) => {
    const e = withLinks(event, links[i]);
    // EventStoreDB's own correlation projections read these: given in full even where the stored metadata omits them
    const { correlationId, causationId } = fullMetadata(e.metadata, e.data);
    return db.kit.jsonEvent({
      id: e.eventId,
      type: e.type,
      data: e.data as Record<string, unknown>,
      metadata: { ...e.metadata, $correlationId: correlationId, $causationId: causationId },
    });
  });
  return db.client.appendToStream(streamId, payload, { expectedRevision });
}

async function readHead(db: EsdbConnection, streamId: string, count: number): Promise<Head> {
  const recent = await readEvents(db, streamId, {
    direction: 'backwards',
    fromRevision: 'end',
    maxCount: count,
  });
  const last = recent[0];
  return {
    revision: last ? Number(last.revision) : -1,
    hash: last ? hashOf(last.metadata) : undefined,
    recentIds: new Set(recent.map((e) => e.id)),
  };
}

async function hashAt(db: EsdbConnection, streamId: string, revision: number): Promise<string | undefined> {
  const found = await readEvents(db, streamId, {
    direction: 'forwards',
    fromRevision: BigInt(revision),
    maxCount: 1,
  });
  return found[0] && Number(found[0].revision) === revision ? hashOf(found[0].metadata) : undefined;
}

/** True when the stream has events but none is visible (all expired or truncated). */
async function isHidden(db: EsdbConnection, streamId: string): Promise<boolean> {
  return (
    (await readEvents(db, streamId, { direction: 'backwards', fromRevision: 'end', maxCount: 1 })).length ===
    0
  );
}

interface ReadEvent {
  readonly id: string;
  readonly revision: bigint;
  readonly metadata?: unknown;
}

async function readEvents(
  db: EsdbConnection,
  streamId: string,
  options: EsdbReadStreamOptions,
): Promise<ReadEvent[]> {
  const events: ReadEvent[] = [];
  try {
    for await (const resolved of db.client.readStream(streamId, options)) {
      if (resolved.event) events.push(resolved.event);
    }
  } catch (error) {
    if (db.kit.isStreamNotFound(error)) return [];
    throw error;
  }
  return events;
}

function hashOf(metadata: unknown): string | undefined {
  const hash = (metadata as { hash?: unknown } | undefined)?.hash;
  return typeof hash === 'string' ? hash : undefined;
}
