import {
  EventBody,
  EventRegistry,
  HcnEvent,
  NewEvent,
  Position,
  RecordedOf,
  comparePositions,
  hcnEventRegistry,
} from '@hcn/contracts';
import { PreparedEvent, RawEvent, checkAppendRequest, decodeEvent, prepareEvents, withLinks } from '../codec';
import { foldChain, genesisHash } from '../hash-chain';
import { DuplicateEventIdError } from '../errors';
import { matchesFilter } from '../filter';
import { Page, PollingSubscription } from '../polling-subscription';
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
import { appendEach, assertExpectedRevision } from '../revision';
import { applyRetention } from '../retention';

interface StoredEvent extends PreparedEvent {
  readonly streamId: string;
  readonly revision: number;
  readonly position: Position;
  readonly recordedAt: string;
}

/**
 * In-memory event store for unit tests of deciders and handlers; same contract as the real adapters. Holds the
 * events `E` that `registry` defines (by default every HCN event).
 */
export class MemoryEventStore<E extends EventBody = HcnEvent> implements EventStore<E> {
  private readonly log: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly metadata = new Map<string, StreamMetadata>();
  private readonly byId = new Map<string, StoredEvent>();
  private readonly subscriptions = new Set<PollingSubscription<E>>();

  constructor(
    private readonly registry: EventRegistry = hcnEventRegistry,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async append(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    checkAppendRequest(streamId, events, expected);
    const prepared = prepareEvents(this.registry, events);
    const stream = this.streams.get(streamId) ?? [];
    const retried = this.idempotentResult(streamId, prepared);
    if (retried) return retried;
    assertExpectedRevision(streamId, expected, stream.length - 1);
    const recordedAt = this.now().toISOString();
    const prev = stream.length > 0 ? stream[stream.length - 1].metadata.hash : undefined;
    const links = foldChain(
      prev ?? genesisHash(streamId),
      prepared.map((e) => e.contentHash),
    );
    // the events of one append share their commit (as a PostgreSQL transaction's share its id); order is kept
    const commit = BigInt(this.log.length + 1);
    for (const event of prepared.map((e, i) => withLinks(e, links[i]))) {
      const seq = BigInt(this.log.length + 1);
      const stored = {
        ...event,
        streamId,
        revision: stream.length,
        position: { commit, prepare: seq },
        recordedAt,
      };
      stream.push(stored);
      this.log.push(stored);
      this.byId.set(stored.eventId, stored);
    }
    this.streams.set(streamId, stream);
    for (const subscription of this.subscriptions) subscription.wake();
    const last = stream[stream.length - 1];
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  appendMany(requests: readonly AppendRequest[]): Promise<AppendOutcome[]> {
    return appendEach((r) => this.append(r.streamId, r.events, r.expectedRevision), requests);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<Array<RecordedOf<E>>> {
    const all = this.streams.get(streamId) ?? [];
    const visible = applyRetention(all, this.metadata.get(streamId) ?? {}, this.now());
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const selected = backwards
      ? visible.filter((e) => e.revision <= from).reverse()
      : visible.filter((e) => e.revision >= from);
    return selected.slice(0, options.maxCount ?? Number.MAX_SAFE_INTEGER).map((e) => this.decode(e));
  }

  async readAll(options: ReadAllOptions = {}): Promise<Array<RecordedOf<E>>> {
    return this.readPage(options.after, options.filter, options.maxCount ?? Number.MAX_SAFE_INTEGER).events;
  }

  async readRaw(options: ReadRawOptions): Promise<RawPage> {
    const source = options.streamId ? (this.streams.get(options.streamId) ?? []) : this.log;
    const after = options.after;
    const scan = source.filter((e) => !after || comparePositions(e.position, after) > 0);
    const window = scan.slice(0, options.maxCount);
    const kept = new Map<string, Set<StoredEvent>>();
    const retained = (e: StoredEvent): boolean => {
      let set = kept.get(e.streamId);
      if (!set) {
        const all = this.streams.get(e.streamId) ?? [];
        set = new Set(applyRetention(all, this.metadata.get(e.streamId) ?? {}, this.now()));
        kept.set(e.streamId, set);
      }
      return set.has(e);
    };
    return {
      events: window.filter(retained).map((e) => toRaw(e)),
      checkpoint: window[window.length - 1]?.position ?? after,
      exhausted: window.length === scan.length,
    };
  }

  subscribeToAll(options: SubscribeToAllOptions<E>): Subscription {
    const source = {
      readPage: async (after: Position | undefined, filter: EventFilter | undefined, limit: number) =>
        this.readPage(after, filter, limit),
    };
    const settings = { pageSize: 500, pollIntervalMs: 1000, retryDelayMs: 100 };
    const subscription = new PollingSubscription(source, options, settings, (s) =>
      this.subscriptions.delete(s),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    this.metadata.set(streamId, { ...metadata });
  }

  async getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    return { ...(this.metadata.get(streamId) ?? {}) };
  }

  async approximateEventCount(): Promise<number> {
    return this.log.length;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }

  private readPage(after: Position | undefined, filter: EventFilter | undefined, limit: number): Page<E> {
    const start = after ? this.log.findIndex((e) => comparePositions(e.position, after) > 0) : 0;
    const scan = start < 0 ? [] : this.log.slice(start);
    const events: Array<RecordedOf<E>> = [];
    let scanned = 0;
    for (const event of scan) {
      if (events.length >= limit) break;
      scanned++;
      if (matchesFilter(filter, event.type, event.streamId)) events.push(this.decode(event));
    }
    const lastScanned = scanned > 0 ? scan[scanned - 1].position : undefined;
    return { events, checkpoint: lastScanned, exhausted: scanned === scan.length };
  }

  private idempotentResult(streamId: string, events: readonly PreparedEvent[]): AppendResult | undefined {
    const existing = events.map((e) => this.byId.get(e.eventId));
    if (existing.every((e) => e === undefined)) return undefined;
    const allHere = existing.every(
      (e, i) => e && e.streamId === streamId && (i === 0 || e.revision === existing[i - 1]!.revision + 1),
    );
    if (!allHere)
      throw new DuplicateEventIdError(
        streamId,
        events.map((e) => e.eventId),
      );
    const last = existing[existing.length - 1]!;
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  private decode(event: StoredEvent): RecordedOf<E> {
    return decodeEvent<E>(this.registry, toRaw(event));
  }
}

function toRaw(event: StoredEvent): RawEvent {
  const { contentHash, ...raw } = event;
  void contentHash;
  return raw;
}
