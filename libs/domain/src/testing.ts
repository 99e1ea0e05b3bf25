import type { Decider } from './decider';
import { fold } from './decider';

/** Given/when/then for deciders: `given(events).when(command)` returns the new events or the thrown error. */
export function specFor<C, E, S>(decider: Decider<C, E, S>) {
  return (given: E[]) => ({
    when: (command: C): { events: E[] } | { error: unknown } => {
      try {
        return { events: decider.decide(command, fold(decider, given)) };
      } catch (error) {
        return { error };
      }
    },
  });
}
