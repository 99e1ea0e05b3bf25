import type { EventBody } from '@hcn/contracts';
import type { DomainError } from './errors';

/** The event types of a decider's streams, each named once (`{ NodeRegistered: true, ... }`: the compiler checks). */
export type EventTypes<Event extends EventBody> = Readonly<Record<Event['type'], true>>;

/**
 * A pure decider for one aggregate: initial state, validate (why a command is refused), decide (command ->
 * events; throws what validate returns) and evolve (state + event).
 */
export interface Decider<Command, Event extends EventBody, State> {
  readonly initialState: State;
  /** The types of the events its streams hold: what a fold of a stream as read accepts. */
  readonly eventTypes: EventTypes<Event>;
  /** Why `command` is refused on `state`, or undefined when it is accepted (a no-op included). */
  validate(command: Command, state: State): DomainError | undefined;
  /** The events `command` causes on `state`; throws the refusal `validate` gives. */
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

/** The parts a decider is made of: its rule (`validate`) and what an accepted command causes (`decideAccepted`). */
export interface DeciderParts<Command, Event extends EventBody, State> {
  readonly initialState: State;
  readonly eventTypes: EventTypes<Event>;
  validate(command: Command, state: State): DomainError | undefined;
  /** The events of a command `validate` accepted (never called for a refused one). */
  decideAccepted(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

/** A decider whose `decide` runs `validate` first and throws its refusal: one rule for both. */
export function defineDecider<Command, Event extends EventBody, State>(
  parts: DeciderParts<Command, Event, State>,
): Decider<Command, Event, State> {
  const { initialState, eventTypes, validate, decideAccepted, evolve } = parts;
  return {
    initialState,
    eventTypes,
    validate,
    decide(command, state) {
      const refusal = validate(command, state);
      if (refusal) throw refusal;
      return decideAccepted(command, state);
    },
    evolve,
  };
}

/** Folds events into a state with a decider's evolve. */
export function fold<Event extends EventBody, State>(
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}

/** The parts of a decider that fold a stream as read. */
export type Folder<Event extends EventBody, State> = Pick<
  Decider<unknown, Event, State>,
  'initialState' | 'evolve' | 'eventTypes'
>;

/**
 * Folds events as read from a stream (anything with `type` and `data`, validated by the store) with a decider's
 * evolve; an event of a type the decider does not know throws, as its evolve would.
 */
export function foldRecorded<Event extends EventBody, State>(
  decider: Folder<Event, State>,
  recorded: readonly EventBody[],
): State {
  return recorded.reduce((state, event) => evolveRecorded(decider, state, event), decider.initialState);
}

/** Evolves a state by one event as read from a stream; throws for an event of a type the decider does not know. */
export function evolveRecorded<Event extends EventBody, State>(
  decider: Pick<Folder<Event, State>, 'evolve' | 'eventTypes'>,
  state: State,
  event: EventBody,
): State {
  if (!isEventOf(decider, event))
    throw new Error(`Unhandled case: ${event.type} is not an event of this stream`);
  return decider.evolve(state, event);
}

/** True for an event of one of the decider's types (the store validated its data against that type's schema). */
function isEventOf<Event extends EventBody>(
  decider: Pick<Folder<Event, unknown>, 'eventTypes'>,
  event: EventBody,
): event is Event {
  return Object.hasOwn(decider.eventTypes, event.type);
}
