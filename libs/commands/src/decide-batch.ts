import type { EventBody, NewEvent } from '@hcn/contracts';
import type { Decider } from '@hcn/domain';
import { toNewEvents } from './command-context';
import type { ContextualCommand } from './types';

/** One command's verdict in a batch: its events (as decided and as they will be appended), or why it was refused. */
export type Verdict<E> =
  { readonly events: E[]; readonly appended: NewEvent[] } | { readonly refused: unknown };

/** The verdicts of a batch decided in order on one state, and the state its events lead to. */
export interface DecidedBatch<E, S> {
  readonly verdicts: Array<Verdict<E>>;
  readonly state: S;
  /** Every command decided events: nothing refused, no no-op (the only verdicts a cached state can back). */
  readonly allAppend: boolean;
}

/** Decides each command in turn on the state the ones before it leave; a refusal leaves the state as it was. */
export function decideBatch<C, E extends EventBody, S>(
  decider: Decider<C, E, S>,
  batch: ReadonlyArray<ContextualCommand<C>>,
  state: S,
): DecidedBatch<E, S> {
  const verdicts: Array<Verdict<E>> = [];
  for (const { command, context } of batch) {
    try {
      const events = decider.decide(command, state);
      state = events.reduce(decider.evolve, state);
      verdicts.push({ events, appended: toNewEvents(events, context) });
    } catch (refused) {
      verdicts.push({ refused });
    }
  }
  const allAppend = verdicts.every((v) => 'events' in v && v.events.length > 0);
  return { verdicts, state, allAppend };
}

/** The events a batch appends, in command order. */
export function appendedOf<E>(verdicts: ReadonlyArray<Verdict<E>>): NewEvent[] {
  return verdicts.flatMap((v) => ('appended' in v ? v.appended : []));
}
