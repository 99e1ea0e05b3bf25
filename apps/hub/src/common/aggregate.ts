import type { Decider } from '@hcn/domain';
import { foldRecorded } from '@hcn/domain';
import { type NewEvent, inParallel } from '@hcn/contracts';
import { ConcurrencyError, EventStore, ExpectedRevision } from '@hcn/eventstore';
import { CommandContext, toNewEvents } from './command-context';

const MAX_ATTEMPTS = 5;
/** Streams `handleManyOnCached` handles side by side when they cannot go in its one appendMany. */
const SLOW_PATH_STREAMS = 8;

/** Result of handling a command on an aggregate. */
export interface Handled<E> {
  readonly events: E[];
  /** Stream revision after the append (or unchanged when nothing was decided). */
  readonly revision: number;
  /** The events as appended, with their ids (absent where the caller's path does not keep them). */
  readonly appended?: readonly NewEvent[];
}

/** A folded state and the revision it was folded to (-1: no stream yet). */
export interface Known<S> {
  readonly state: S;
  readonly revision: number;
}

/** Reads a stream and folds it: the state and the revision it was folded to. */
export async function loadKnown<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
): Promise<Known<S>> {
  const recorded = await store.readStream(streamId);
  const revision = recorded.length > 0 ? recorded[recorded.length - 1].revision : -1;
  return { state: foldRecorded(decider, recorded), revision };
}

/** Appends events decided on a known state, expecting its revision; returns them and the state after them. */
async function appendOnKnown<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  known: Known<S>,
  events: E[],
  context: CommandContext,
): Promise<Handled<E> & Known<S>> {
  const expected: ExpectedRevision = known.revision < 0 ? 'no_stream' : known.revision;
  const appended = toNewEvents(events, context);
  const result = await store.append(streamId, appended, expected);
  const state = events.reduce(decider.evolve, known.state);
  return { events, appended, revision: result.nextExpectedRevision, state };
}

/**
 * Load, decide, append with the expected revision; on a concurrent write, reload and decide again.
 * The decider sees only `{ type, data }` of the stream's events. Returns the state after the events decided.
 */
export async function handleOnStream<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C,
  context: CommandContext,
): Promise<Handled<E> & Known<S>> {
  for (let attempt = 1; ; attempt++) {
    const known = await loadKnown(store, decider, streamId);
    const events = decider.decide(command, known.state);
    if (events.length === 0) return { events, ...known };
    try {
      return await appendOnKnown(store, decider, streamId, known, events, context);
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/**
 * Decide on a state the caller already holds and append with its revision; only when another writer got there
 * first does it fall back to load-decide-append. Saves the read on the hot paths (submission, placement).
 */
export async function handleOnKnown<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  known: Known<S>,
  command: C,
  context: CommandContext,
): Promise<Handled<E> & Known<S>> {
  const events = decider.decide(command, known.state);
  if (events.length === 0) return { events, ...known };
  try {
    return await appendOnKnown(store, decider, streamId, known, events, context);
  } catch (error) {
    if (!(error instanceof ConcurrencyError)) throw error;
    return handleOnStream(store, decider, streamId, command, context);
  }
}

/**
 * Decides on a state this hub kept from its own last write (`cached`), appending with its revision. Only a
 * decision that appends is trusted that way: a refusal or a no-op decided on a cached state proves nothing (it may
 * miss newer events), so those, like a refused append, are decided again on the stream as read.
 */
export async function handleOnCached<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  cached: Known<S> | undefined,
  command: C,
  context: CommandContext,
): Promise<Handled<E> & Known<S>> {
  const events = cached ? decideOrUndefined(decider, command, cached.state) : undefined;
  if (cached && events && events.length > 0) {
    try {
      return await appendOnKnown(store, decider, streamId, cached, events, context);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }
  return handleOnStream(store, decider, streamId, command, context);
}

function decideOrUndefined<C, E, S>(decider: Decider<C, E, S>, command: C, state: S): E[] | undefined {
  try {
    return decider.decide(command, state);
  } catch {
    return undefined;
  }
}

/** The commands of one stream for `handleManyOnCached`, in order, each with its own context. */
export interface StreamCommands<C, S> {
  readonly streamId: string;
  readonly cached: Known<S> | undefined;
  readonly commands: ReadonlyArray<{ readonly command: C; readonly context: CommandContext }>;
}

/** What `handleManyOnCached` did on one stream: the state after it (when known) and the commands refused. */
export interface StreamOutcome<S> {
  readonly known?: Known<S>;
  readonly refused: ReadonlyArray<{ readonly index: number; readonly error: unknown }>;
}

/**
 * `handleOnCached` for many streams at once: streams whose every command appends on the cached state go to the
 * store in one appendMany (each with its cached revision); a stream with a refusal or a no-op, no cached state or
 * a refused append is handled command by command as `handleOnCached` would (a command it refuses is noted and the
 * next one goes on). Outcomes in the order given; the one appendMany failing as a whole rejects.
 */
export async function handleManyOnCached<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streams: ReadonlyArray<StreamCommands<C, S>>,
): Promise<StreamOutcome<S>[]> {
  const outcomes: StreamOutcome<S>[] = new Array(streams.length);
  const fast: Array<{ at: number; state: S; events: NewEvent[] }> = [];
  for (const [at, s] of streams.entries()) {
    const decided = s.cached ? decideAll(decider, s.commands, s.cached.state) : undefined;
    if (decided) fast.push({ at, ...decided });
  }
  const appended = await store.appendMany(
    fast.map(({ at, events }) => {
      const revision = (streams[at].cached as Known<S>).revision;
      return {
        streamId: streams[at].streamId,
        events,
        expectedRevision: revision < 0 ? 'no_stream' : revision,
      };
    }),
  );
  for (const [i, { at, state }] of fast.entries()) {
    const result = appended[i];
    if (result.ok)
      outcomes[at] = { known: { state, revision: result.result.nextExpectedRevision }, refused: [] };
    else if (!(result.error instanceof ConcurrencyError)) throw result.error;
  }
  const slow = [...streams.keys()].filter((at) => !outcomes[at]);
  await inParallel(slow, SLOW_PATH_STREAMS, async (at) => {
    outcomes[at] = await handleOneByOne(store, decider, streams[at]);
  });
  return outcomes;
}

/** Every command decided in turn on `state` into new events; undefined when one refuses or decides nothing. */
function decideAll<C, E extends { type: string; data: unknown }, S>(
  decider: Decider<C, E, S>,
  commands: StreamCommands<C, S>['commands'],
  state: S,
): { state: S; events: NewEvent[] } | undefined {
  const events: NewEvent[] = [];
  for (const { command, context } of commands) {
    const decided = decideOrUndefined(decider, command, state);
    if (!decided || decided.length === 0) return undefined;
    state = decided.reduce(decider.evolve, state);
    events.push(...toNewEvents(decided, context));
  }
  return { state, events };
}

/** One stream's commands through `handleOnCached`, one after the other; a refused one is noted and skipped. */
async function handleOneByOne<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  s: StreamCommands<C, S>,
): Promise<StreamOutcome<S>> {
  let known = s.cached;
  const refused: Array<{ index: number; error: unknown }> = [];
  for (const [index, { command, context }] of s.commands.entries()) {
    try {
      const handled = await handleOnCached(store, decider, s.streamId, known, command, context);
      known = { state: handled.state, revision: handled.revision };
    } catch (error) {
      refused.push({ index, error });
    }
  }
  return known ? { known, refused } : { refused };
}
