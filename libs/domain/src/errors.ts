import { HcnError } from '@hcn/contracts';

/** A command refused by a decider: an invariant, not a shape problem. Codes are dotted (`NODE.NOT_FOUND`). */
export class DomainError extends HcnError {}

/** Exhaustiveness guard for switches over unions. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
