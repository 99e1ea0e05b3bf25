import { BoundedMap, type EventBody, type Position, inParallel } from '@hcn/contracts';
import { type Decider, foldRecorded } from '@hcn/domain';
import { type AnyEventStore, ConcurrencyError } from '@hcn/eventstore';
import type { CommandContext } from './command-context';
import { DecidedBatch, appendedOf, decideBatch } from './decide-batch';
import { HandleOptions, PreconditionFailedError } from './precondition';
import type {
  ContextualCommand,
  EngineOptions,
  Handled,
  Known,
  StreamCommands,
  StreamOutcome,
} from './types';

const DEFAULT_MAX_ATTEMPTS = 5;
/** Streams `handleMany` handles side by side when they cannot go in its one appendMany. */
const SLOW_PATH_STREAMS = 8;

/** A command waiting for its verdict. */
interface Pending<C, E, S> extends ContextualCommand<C> {
  resolve(handled: Handled<E, S>): void;
  reject(error: unknown): void;
}

/** The state a batch is decided on first: held by the caller (trusted) or by the cache (only appends trusted). */
interface Start<S> {
  readonly known: Known<S>;
  readonly trusted: boolean;
}

/**
 * The one way commands reach the event store: load (or take the cached state), decide, append with the expected
 * revision; on a concurrent write, decide again on the stream as read. Options add a cache of states, group commit
 * and jitter (see `EngineOptions`).
 */
export class CommandEngine<C, E extends EventBody, S> {
  private readonly cache?: BoundedMap<Known<S>>;
  private readonly queues = new Map<string, Array<Pending<C, E, S>>>();
  private readonly maxAttempts: number;

  constructor(
    private readonly store: AnyEventStore,
    private readonly decider: Decider<C, E, S>,
    private readonly options: EngineOptions<E> = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (options.cachedStreams) this.cache = new BoundedMap(options.cachedStreams);
  }

  /**
   * Handles `command` on `streamId`: on the cached state when there is one, else on the stream as read. With
   * `ifRevision`, only on the stream as read at one of those revisions (see `handleIfAt`).
   */
  handle(
    streamId: string,
    command: C,
    context: CommandContext,
    options: HandleOptions = {},
  ): Promise<Handled<E, S>> {
    if (options.ifRevision) return this.handleIfAt(streamId, options.ifRevision, command, context);
    return new Promise((resolve, reject) => {
      const pending = { command, context, resolve, reject };
      if (!this.options.groupCommit) return void this.settle(streamId, [pending], this.cachedStart(streamId));
      const queue = this.queues.get(streamId);
      if (queue) return void queue.push(pending);
      this.queues.set(streamId, [pending]);
      void this.drain(streamId);
    });
  }

  /**
   * Handles `command` on a state the caller holds and trusts (a refusal or a no-op on it is answered as is); only a
   * conflicting append makes it decide again on the stream as read. Not queued behind group commits.
   */
  handleOnKnown(
    streamId: string,
    known: Known<S>,
    command: C,
    context: CommandContext,
  ): Promise<Handled<E, S>> {
    return new Promise((resolve, reject) => {
      void this.settle(streamId, [{ command, context, resolve, reject }], { known, trusted: true });
    });
  }

  /**
   * Handles `command` only when the stream as read now is at one of `revisions`, appending expecting exactly that
   * revision: a stream elsewhere, or a write between the read and the append, is REQUEST.PRECONDITION_FAILED and
   * nothing is written (no retry: the caller's precondition no longer holds).
   */
  async handleIfAt(
    streamId: string,
    revisions: readonly number[],
    command: C,
    context: CommandContext,
  ): Promise<Handled<E, S>> {
    const known = await this.load(streamId);
    if (!revisions.includes(known.revision)) throw new PreconditionFailedError(revisions, known.revision);
    const decided = decideBatch(this.decider, [{ command, context }], known.state);
    const [verdict] = decided.verdicts;
    if ('refused' in verdict) throw verdict.refused;
    try {
      return { ...verdict, ...(await this.append(streamId, known.revision, decided)) };
    } catch (error) {
      if (error instanceof ConcurrencyError) throw new PreconditionFailedError(revisions, undefined);
      throw error;
    }
  }

  /**
   * `handle` for many streams at once: streams whose every command appends on the cached state go to the store in
   * one appendMany; the others (a refusal, a no-op, nothing cached, a conflict) are handled command by command,
   * a refused command noted and the next one handled. Outcomes in the order given; the appendMany failing as a
   * whole rejects.
   */
  async handleMany(streams: ReadonlyArray<StreamCommands<C>>): Promise<Array<StreamOutcome<S>>> {
    const outcomes: Array<StreamOutcome<S> | undefined> = await this.appendManyOnCache(streams);
    const slow = [...streams.keys()].filter((at) => !outcomes[at]);
    await inParallel(slow, SLOW_PATH_STREAMS, async (at) => {
      outcomes[at] = await this.handleOneByOne(streams[at]);
    });
    return outcomes as Array<StreamOutcome<S>>;
  }

  /** The stream's state now: the cached state brought up to date with what was appended since, or a full read. */
  async load(streamId: string): Promise<Known<S>> {
    const cached = this.cache?.get(streamId);
    const fresh = cached
      ? await this.store.readStream(streamId, { fromRevision: cached.revision + 1 })
      : await this.store.readStream(streamId);
    const from = cached ?? { state: this.decider.initialState, revision: -1 };
    if (fresh.length === 0) return from;
    const state = foldRecorded({ ...this.decider, initialState: from.state }, fresh);
    const known = { state, revision: fresh[fresh.length - 1].revision };
    this.cache?.set(streamId, known);
    return known;
  }

  /** The state this engine holds for `streamId` (none without a cache). */
  cached(streamId: string): Known<S> | undefined {
    return this.cache?.get(streamId);
  }

  /** Keeps a state appended outside the engine (e.g. a stream created by an appendMany of its own). */
  remember(streamId: string, known: Known<S>): void {
    this.cache?.set(streamId, known);
  }

  private cachedStart(streamId: string): Start<S> | undefined {
    const known = this.cache?.get(streamId);
    return known && { known, trusted: false };
  }

  private async drain(streamId: string): Promise<void> {
    for (;;) {
      const batch = this.queues.get(streamId) ?? [];
      if (batch.length === 0) return void this.queues.delete(streamId);
      this.queues.set(streamId, []);
      await this.settle(streamId, batch, this.cachedStart(streamId));
    }
  }

  /** Commits a batch and answers each of its commands; a failure of the whole batch rejects them all. */
  private async settle(streamId: string, batch: Array<Pending<C, E, S>>, start?: Start<S>): Promise<void> {
    try {
      const { decided, known } = await this.commit(streamId, batch, start);
      for (const [i, verdict] of decided.verdicts.entries()) {
        if ('refused' in verdict) batch[i].reject(verdict.refused);
        else batch[i].resolve({ ...verdict, ...known });
      }
    } catch (error) {
      batch.forEach((p) => p.reject(error));
    }
  }

  /**
   * Decides the batch on `start` (when given) and appends its events expecting that revision; a verdict the start
   * cannot back, or a conflict, has it decided again on the stream as read, up to `maxAttempts` appends.
   */
  private async commit(
    streamId: string,
    batch: ReadonlyArray<ContextualCommand<C>>,
    start?: Start<S>,
  ): Promise<{ decided: DecidedBatch<E, S>; known: Known<S> }> {
    for (let attempt = 0, from = start; ; from = undefined) {
      const current = from ?? { known: await this.load(streamId), trusted: true };
      const decided = decideBatch(this.decider, batch, current.known.state);
      if (!current.trusted && !decided.allAppend) continue;
      try {
        return { decided, known: await this.append(streamId, current.known.revision, decided) };
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
        if (!from && ++attempt >= this.maxAttempts) throw error;
        await this.pause(attempt);
      }
    }
  }

  /** Appends what a batch decided (nothing when it decided nothing) and keeps the state it leads to. */
  private async append(streamId: string, revision: number, decided: DecidedBatch<E, S>): Promise<Known<S>> {
    const events = appendedOf(decided.verdicts);
    if (events.length === 0) return { state: decided.state, revision };
    const expected = revision < 0 ? 'no_stream' : revision;
    const result = await this.store.append(streamId, events, expected);
    const known = { state: decided.state, revision: result.nextExpectedRevision };
    this.cache?.set(streamId, known);
    this.appended(streamId, decided, known.revision, result.position);
    return known;
  }

  /** Tells `onAppended` of a batch's events, the last at `lastRevision` and log position `position`. */
  private appended(
    streamId: string,
    decided: DecidedBatch<E, S>,
    lastRevision: number,
    position: Position,
  ): void {
    if (!this.options.onAppended) return;
    const events = decided.verdicts.flatMap((v) => ('events' in v ? v.events : []));
    this.options.onAppended(streamId, events, lastRevision - events.length + 1, position);
  }

  private async pause(attempt: number): Promise<void> {
    if (!this.options.jitter) return;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.random() * Math.min(50, 2 * Math.max(1, attempt))),
    );
  }

  /** The fast path of `handleMany`: outcomes of the streams whose cached state took all their commands. */
  private async appendManyOnCache(
    streams: ReadonlyArray<StreamCommands<C>>,
  ): Promise<Array<StreamOutcome<S> | undefined>> {
    const outcomes: Array<StreamOutcome<S> | undefined> = new Array(streams.length);
    const fast: Array<{ at: number; revision: number; decided: DecidedBatch<E, S> }> = [];
    for (const [at, { streamId, commands }] of streams.entries()) {
      const cached = this.cache?.get(streamId);
      const decided = cached && decideBatch(this.decider, commands, cached.state);
      if (cached && decided?.allAppend) fast.push({ at, revision: cached.revision, decided });
    }
    if (fast.length === 0) return outcomes;
    const results = await this.store.appendMany(
      fast.map(({ at, revision, decided }) => ({
        streamId: streams[at].streamId,
        events: appendedOf(decided.verdicts),
        expectedRevision: revision < 0 ? ('no_stream' as const) : revision,
      })),
    );
    for (const [i, { at, decided }] of fast.entries()) {
      const result = results[i];
      if (!result.ok && !(result.error instanceof ConcurrencyError)) throw result.error;
      if (!result.ok) continue;
      const known = { state: decided.state, revision: result.result.nextExpectedRevision };
      this.cache?.set(streams[at].streamId, known);
      this.appended(streams[at].streamId, decided, known.revision, result.result.position);
      outcomes[at] = { known, refused: [] };
    }
    return outcomes;
  }

  /** One stream's commands through `handle`, one after the other; a refused one is noted and the next goes on. */
  private async handleOneByOne({ streamId, commands }: StreamCommands<C>): Promise<StreamOutcome<S>> {
    let known = this.cache?.get(streamId);
    const refused: Array<{ index: number; error: unknown }> = [];
    for (const [index, { command, context }] of commands.entries()) {
      try {
        const handled = await this.handle(streamId, command, context);
        known = { state: handled.state, revision: handled.revision };
      } catch (error) {
        refused.push({ index, error });
      }
    }
    return known ? { known, refused } : { refused };
  }
}
