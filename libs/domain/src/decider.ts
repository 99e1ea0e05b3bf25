/** A pure decider for one aggregate: initial state, decide (command -> events), evolve (state + event). */
export interface Decider<Command, Event, State> {
  readonly initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
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
