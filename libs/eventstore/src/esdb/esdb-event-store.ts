import {
  EventBody,
  EventRegistry,
  HcnError,
  HcnEvent,
  NewEvent,
  RecordedOf,
  comparePositions,
  hcnEventRegistry,
} from '@hcn/contracts';
import { RawEvent, checkAppendRequest, decodeEvent, prepareEvents } from '../codec';
import { ConcurrencyError, DuplicateEventIdError, EventStoreUnavailableError } from '../errors';
import { matchesFilter } from '../filter';
import { appendEach } from '../revision';
import { EsdbConnection, appendChained } from './esdb-chain';
import { EsdbKit, EsdbPosition, EsdbRecorded, esdbClientFor } from './esdb-kit';
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

/**
 * The client library a connection string's scheme asks for: `@eventstore/db-client` 6.x for esdb://, its
 * maintained successor `@kurrent/kurrentdb-client` 1.x for kurrentdb://, kurrent:// or kdb://. Loaded on demand, so
 * a process loads only the gRPC client it uses.
 */
export function esdbKitFor(connectionString: string): EsdbKit {
  switch (esdbClientFor(connectionString)) {
    case 'eventstoredb':
      return (require('./eventstoredb-kit') as typeof import('./eventstoredb-kit')).eventStoreDbKit;
    case 'kurrentdb':
      return (require('./kurrentdb-kit') as typeof import('./kurrentdb-kit')).kurrentDbKit;
    default:
      throw new EventStoreUnavailableError(
        'EVENTSTORE_URL must start with esdb:// (@eventstore/db-client) or kurrentdb://, kurrent://, kdb:// (@kurrent/kurrentdb-client)',
      );
  }
}

/**
 * Event store on EventStoreDB/KurrentDB through its gRPC client, `@eventstore/db-client` 6.x or
 * `@kurrent/kurrentdb-client` 1.x (see esdbKitFor); only the kits import them, and the clients' errors become the
 * port's. NOTE: not run against a live server in this project's CI (EventStoreDB cannot run there).
 */
export class EsdbEventStore<E extends EventBody = HcnEvent> implements EventStore<E> {
  private readonly db: EsdbConnection;
  private readonly subscriptions = new Set<Subscription>();

  /**
   * `registry`: the schemas of the events the store holds (default: every HCN event); reads return those events.
   * `kit`: the client library, by default the one the connection string's scheme names.
   */
  constructor(
    connectionString: string,
    private readonly registry: EventRegistry = hcnEventRegistry,
    kit: EsdbKit = esdbKitFor(connectionString),
  ) {
    this.db = { kit, client: kit.connect(connectionString) };
  }

  private get client() {
    return this.db.client;
  }

  async append(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    checkAppendRequest(streamId, events, expected);
    const prepared = prepareEvents(this.registry, events);
    try {
      const result = await appendChained(this.db, streamId, prepared, expected);
      if (!result.position)
        throw new EventStoreUnavailableError('EventStoreDB returned no position for an append');
      return {
        nextExpectedRevision: Number(result.nextExpectedRevision),
        position: { commit: result.position.commit, prepare: result.position.prepare },
      };
    } catch (error) {
      throw this.translate(
        error,
        streamId,
        expected,
        prepared.map((e) => e.eventId),
      );
    }
  }

  appendMany(requests: readonly AppendRequest[]): Promise<AppendOutcome[]> {
    return appendEach((r) => this.append(r.streamId, r.events, r.expectedRevision), requests);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<Array<RecordedOf<E>>> {
    const backwards = options.direction === 'backwards';
    const events: Array<RecordedOf<E>> = [];
    try {
      const reading = this.client.readStream(streamId, {
        direction: backwards ? 'backwards' : 'forwards',
        fromRevision:
          options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? 'end' : 'start',
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of reading) {
        if (resolved.event) events.push(this.decode(resolved.event));
      }
    } catch (error) {
      if (this.db.kit.isStreamNotFound(error)) return [];
      throw this.translate(error, streamId, 'any');
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<Array<RecordedOf<E>>> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const events: Array<RecordedOf<E>> = [];
    try {
      const reading = this.client.readAll({ fromPosition: options.after ?? 'start', direction: 'forwards' });
      for await (const resolved of reading) {
        const event = resolved.event;
        if (!event || !event.position) continue;
        if (options.after && comparePositions(event.position, options.after) <= 0) continue;
        if (!matchesFilter(options.filter, event.type, event.streamId)) continue;
        events.push(this.decode(event));
        if (events.length >= limit) break;
      }
    } catch (error) {
      throw this.translate(error, '$all', 'any');
    }
    return events;
  }

  /**
   * Stored events without validation. `$all` pages use the server's order; a stream is read from its start and
   * skipped up to `after` (fine for audits, not for very long streams). EventStoreDB drops expired events from
   * `$all` when it scavenges them; stream reads hide them at once.
   */
  async readRaw(options: ReadRawOptions): Promise<RawPage> {
    const scanned: EsdbRecorded[] = [];
    try {
      const reading = options.streamId
        ? this.client.readStream(options.streamId, { direction: 'forwards', fromRevision: 'start' })
        : this.client.readAll({ fromPosition: options.after ?? 'start', direction: 'forwards' });
      for await (const resolved of reading) {
        const event = resolved.event;
        if (!event?.position || (options.after && comparePositions(event.position, options.after) <= 0))
          continue;
        scanned.push(event);
        if (scanned.length >= options.maxCount) break;
      }
    } catch (error) {
      if (this.db.kit.isStreamNotFound(error))
        return { events: [], checkpoint: options.after, exhausted: true };
      throw this.translate(error, options.streamId ?? '$all', 'any');
    }
    const last = scanned[scanned.length - 1]?.position;
    return {
      events: scanned.filter((e) => !e.type.startsWith('$') && !e.streamId.startsWith('$')).map(toRaw),
      checkpoint: last ? { commit: last.commit, prepare: last.prepare } : options.after,
      exhausted: scanned.length < options.maxCount,
    };
  }

  subscribeToAll(options: SubscribeToAllOptions<E>): Subscription {
    const esdbSubscription = this.client.subscribeToAll({
      fromPosition: options.after ?? 'start',
      filter: toEsdbFilter(this.db.kit, options.filter, options.onCheckpoint),
    });
    let stopped = false;
    const run = async (): Promise<void> => {
      try {
        for await (const resolved of esdbSubscription) {
          if (stopped) break;
          if (!resolved.event || !matchesFilter(options.filter, resolved.event.type, resolved.event.streamId))
            continue;
          await options.onEvent(this.decode(resolved.event));
        }
      } catch (error) {
        if (!stopped) options.onError?.(this.translate(error, '$all', 'any'));
      }
    };
    if (options.onCaughtUp) esdbSubscription.once('caughtUp', options.onCaughtUp);
    const done = run();
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        await esdbSubscription.unsubscribe().catch(() => undefined);
        await done;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    try {
      await this.client.setStreamMetadata(streamId, { maxAge: metadata.maxAge, maxCount: metadata.maxCount });
    } catch (error) {
      throw this.translate(error, `$$${streamId}`, 'any');
    }
  }

  async getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    try {
      const { metadata } = await this.client.getStreamMetadata(streamId);
      const result: { maxAge?: number; maxCount?: number } = {};
      if (metadata?.maxAge !== undefined) result.maxAge = metadata.maxAge;
      if (metadata?.maxCount !== undefined) result.maxCount = metadata.maxCount;
      return result;
    } catch (error) {
      if (this.db.kit.isStreamNotFound(error)) return {};
      throw this.translate(error, `$$${streamId}`, 'any');
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  private decode(event: EsdbRecorded): RecordedOf<E> {
    return decodeEvent<E>(this.registry, toRaw(event));
  }

  private translate(error: unknown, streamId: string, expected: ExpectedRevision, ids: string[] = []): Error {
    if (error instanceof HcnError) return error;
    const conflict = this.db.kit.wrongExpectedVersion(error);
    if (conflict) {
      const actual = conflict.actualVersion;
      return new ConcurrencyError(streamId, expected, typeof actual === 'bigint' ? Number(actual) : -1);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/duplicate/i.test(message)) return new DuplicateEventIdError(streamId, ids);
    return new EventStoreUnavailableError(`${this.db.kit.library} failed: ${message}`, error);
  }
}

function toRaw(event: EsdbRecorded): RawEvent {
  const position = event.position ?? { commit: 0n, prepare: 0n };
  return {
    eventId: event.id,
    type: event.type,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: { commit: position.commit, prepare: position.prepare },
    recordedAt: new Date(event.created).toISOString(),
    data: event.data,
    metadata: stripSystemKeys(event.metadata),
  };
}

function toEsdbFilter(
  kit: EsdbKit,
  filter: EventFilter | undefined,
  onCheckpoint: SubscribeToAllOptions['onCheckpoint'],
): never {
  const checkpointReached = onCheckpoint
    ? (_: unknown, position: EsdbPosition) =>
        onCheckpoint({ commit: position.commit, prepare: position.prepare })
    : undefined;
  const common = { checkpointInterval: 1, ...(checkpointReached ? { checkpointReached } : {}) };
  if (!filter) return kit.excludeSystemEvents(common);
  const prefixes = [...filter.prefixes];
  return filter.kind === 'streamPrefix'
    ? kit.streamNameFilter({ prefixes, ...common })
    : kit.eventTypeFilter({ prefixes, ...common });
}

function stripSystemKeys(metadata: unknown): unknown {
  if (!metadata || typeof metadata !== 'object') return metadata;
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !key.startsWith('$')));
}
