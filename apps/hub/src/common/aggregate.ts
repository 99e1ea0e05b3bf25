import type { Decider } from '@hcn/domain';
import { foldRecorded } from '@hcn/domain';
import type { NewEvent } from '@hcn/contracts';
import { ConcurrencyError, EventStore, ExpectedRevision } from '@hcn/eventstore';
import { CommandContext, toNewEvents } from './command-context';

const MAX_ATTEMPTS = 5;

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
