import { inParallel } from '@hcn/contracts';
import { ConcurrencyError } from './errors';
import type { AppendOutcome, AppendRequest, AppendResult, ExpectedRevision } from './port';

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

/** appendMany for adapters without a batch path: each request on its own, `concurrency` at a time. */
export async function appendEach(
  append: (request: AppendRequest) => Promise<AppendResult>,
  requests: readonly AppendRequest[],
  concurrency = 16,
): Promise<AppendOutcome[]> {
  const outcomes: AppendOutcome[] = new Array(requests.length);
  await inParallel([...requests.keys()], concurrency, async (i) => {
    try {
      outcomes[i] = { ok: true, result: await append(requests[i]) };
    } catch (error) {
      outcomes[i] = { ok: false, error: error as Error };
    }
  });
  return outcomes;
}
