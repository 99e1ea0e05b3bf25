import type { DomainError } from './errors';

/**
 * A pure decider for one aggregate: initial state, validate (why a command is refused), decide (command ->
 * events; throws what validate returns) and evolve (state + event).
 */
export interface Decider<Command, Event, State> {
  readonly initialState: State;
  /** Why `command` is refused on `state`, or undefined when it is accepted (a no-op included). */
  validate(command: Command, state: State): DomainError | undefined;
  /** The events `command` causes on `state`; throws the refusal `validate` gives. */
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

/** The parts a decider is made of: its rule (`validate`) and what an accepted command causes (`decideAccepted`). */
export interface DeciderParts<Command, Event, State> {
  readonly initialState: State;
  validate(command: Command, state: State): DomainError | undefined;
  /** The events of a command `validate` accepted (never called for a refused one). */
  decideAccepted(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

/** A decider whose `decide` runs `validate` first and throws its refusal: one rule for both. */
export function defineDecider<Command, Event, State>(
  parts: DeciderParts<Command, Event, State>,
): Decider<Command, Event, State> {
  const { initialState, validate, decideAccepted, evolve } = parts;
  return {
    initialState,
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
export function fold<Event, State>(
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}

/** Folds events as read from a stream (anything with `type` and `data`) with a decider's evolve. */
export function foldRecorded<Event, State>(
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
  recorded: ReadonlyArray<{ readonly type: string; readonly data: unknown }>,
): State {
  return recorded.reduce(
    (state, r) => decider.evolve(state, { type: r.type, data: r.data } as Event),
    decider.initialState,
  );
}
