import type { EventBody } from '@hcn/contracts';
import type { Decider } from './decider';
import { fold } from './decider';
import { DomainError } from './errors';

/**
 * Given/when/then for deciders: `given(events).when(command)` returns the new events or the thrown error. It also
 * checks that `decide` throws only the refusal `validate` gives (every rule lives in `validate`).
 */
export function specFor<C, E extends EventBody, S>(decider: Decider<C, E, S>) {
  return (given: E[]) => ({
    when: (command: C): { events: E[] } | { error: unknown } => {
      const state = fold(decider, given);
      const refusal = decider.validate(command, state);
      try {
        return { events: decider.decide(command, state) };
      } catch (error) {
        if (!sameRefusal(error, refusal))
          throw new Error(`decide threw what validate did not give: ${error}`);
        return { error };
      }
    },
  });
}

function sameRefusal(error: unknown, refusal: DomainError | undefined): boolean {
  return error instanceof DomainError && error.code === refusal?.code && error.message === refusal.message;
}
