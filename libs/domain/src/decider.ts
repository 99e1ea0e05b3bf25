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
