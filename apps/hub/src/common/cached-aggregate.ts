import {
  Decider,
  NodeCommand,
  NodeEvent,
  NodeState,
  QuotaCommand,
  QuotaEvent,
  QuotaState,
  WorkloadState,
  nodeDecider,
  quotaDecider,
} from '@hcn/domain';
import { ConcurrencyError, EventStore } from '@hcn/eventstore';
import type { Handled, Known } from './aggregate';
import { CommandContext, toNewEvents } from './command-context';
import { BoundedMap } from './bounded-map';

/** Attempts on a hot stream before a concurrency conflict reaches the caller. */
const MAX_ATTEMPTS = 40;

interface Pending<C, E> {
  readonly command: C;
  readonly context: CommandContext;
  resolve(handled: Handled<E>): void;
  reject(error: unknown): void;
}

/**
 * Load, decide, append with the expected revision, for streams that are written often and grow long (a
 * namespace's quota, a node's reservations). The folded state and revision are kept in memory and appended to
 * optimistically; a conflict, a refusal or a no-op reads the events appended since. Commands on one stream are group-committed: while an append is in flight the
 * next ones queue, and are then decided one after the other on the same state and appended together. A conflict
 * with another hub re-reads what it appended, decides the batch again and retries with jitter.
 */
export class CachedAggregate<C, E extends { type: string; data: unknown }, S> {
  private readonly cache = new Map<string, { state: S; revision: number }>();
  private readonly queues = new Map<string, Array<Pending<C, E>>>();

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<C, E, S>,
  ) {}

  /** Handles `command` on `streamId`. */
  handle(streamId: string, command: C, context: CommandContext): Promise<Handled<E>> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(streamId);
      if (queue) return void queue.push({ command, context, resolve, reject });
      this.queues.set(streamId, [{ command, context, resolve, reject }]);
      void this.drain(streamId);
    });
  }

  private async drain(streamId: string): Promise<void> {
    for (;;) {
      const batch = this.queues.get(streamId) ?? [];
      if (batch.length === 0) return void this.queues.delete(streamId);
      this.queues.set(streamId, []);
      try {
        await this.commit(streamId, batch);
      } catch (error) {
        batch.forEach((p) => p.reject(error));
      }
    }
  }

  /** Decides every pending command in order on one state and appends all their events at once. */
  private async commit(streamId: string, batch: Array<Pending<C, E>>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // optimistic: the cached state is usually current (this hub wrote last); a conflict reads what is new
      const cached = attempt === 1 ? this.cache.get(streamId) : undefined;
      const current = cached ?? (await this.load(streamId));
      let state = current.state;
      const decided: Array<
        { pending: Pending<C, E>; events: E[] } | { pending: Pending<C, E>; error: unknown }
      > = [];
      for (const pending of batch) {
        try {
          const events = this.decider.decide(pending.command, state);
          state = events.reduce(this.decider.evolve, state);
          decided.push({ pending, events });
        } catch (error) {
          decided.push({ pending, error });
        }
      }
      // A refusal or a no-op decided on the cache proves nothing (the cache may miss newer events): only an append
      // checks the revision. So those verdicts are confirmed on freshly read state before they are answered.
      const unconfirmed = decided.some((d) => !('events' in d) || d.events.length === 0);
      if (cached && unconfirmed) continue;
      const newEvents = decided.flatMap((d) =>
        'events' in d ? toNewEvents(d.events, d.pending.context) : [],
      );
      let revision = current.revision;
      if (newEvents.length > 0) {
        try {
          const expected = current.revision < 0 ? 'no_stream' : current.revision;
          revision = (await this.store.append(streamId, newEvents, expected)).nextExpectedRevision;
        } catch (error) {
          if (!(error instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw error;
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
          continue;
        }
        this.cache.set(streamId, { state, revision });
      }
      for (const d of decided) {
        if ('events' in d) d.pending.resolve({ events: d.events, revision });
        else d.pending.reject(d.error);
      }
      return;
    }
  }

  /** The cached state brought up to date with what was appended since. */
  async load(streamId: string): Promise<{ state: S; revision: number }> {
    const cached = this.cache.get(streamId) ?? { state: this.decider.initialState, revision: -1 };
    const fresh = await this.store.readStream(streamId, { fromRevision: cached.revision + 1 });
    if (fresh.length === 0) return cached;
    const state = fresh
      .map((r) => ({ type: r.type, data: r.data }) as E)
      .reduce(this.decider.evolve, cached.state);
    const updated = { state, revision: fresh[fresh.length - 1].revision };
    this.cache.set(streamId, updated);
    return updated;
  }
}

/**
 * The hub's hot streams: node reservations and namespace quotas, each behind one cache; and the workloads this hub
 * placed last, whose agents' reports follow at once.
 */
export class HotStreams {
  readonly nodes: CachedAggregate<NodeCommand, NodeEvent, NodeState>;
  readonly quotas: CachedAggregate<QuotaCommand, QuotaEvent, QuotaState>;
  /** Workload states as this hub last wrote them, by stream id (see `handleOnCached`); the latest 10,000. */
  readonly workloads = new BoundedMap<Known<WorkloadState>>(10_000);

  constructor(readonly store: EventStore) {
    this.nodes = new CachedAggregate(store, nodeDecider);
    this.quotas = new CachedAggregate(store, quotaDecider);
  }
}
