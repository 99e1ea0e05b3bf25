import { ConcurrencyError } from './errors';
import type { ExpectedRevision } from './port';

/** Throws ConcurrencyError unless a stream at `current` (-1: no stream) satisfies `expected`. */
export function assertExpectedRevision(streamId: string, expected: ExpectedRevision, current: number): void {
  if (!satisfiesExpectedRevision(expected, current)) throw new ConcurrencyError(streamId, expected, current);
}

/** True when a stream at `current` (-1: no stream) satisfies `expected`. */
export function satisfiesExpectedRevision(expected: ExpectedRevision, current: number): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === -1;
    case 'stream_exists':
      return current >= 0;
    default:
      return current === expected;
  }
}
