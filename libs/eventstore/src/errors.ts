import { HcnError } from '@hcn/contracts';
import type { ExpectedRevision } from './port';

/** The stream is not at the expected revision (EventStoreDB's WrongExpectedVersion). */
export class ConcurrencyError extends HcnError {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** Current revision, or -1 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(
      'EVENTSTORE.WRONG_EXPECTED_REVISION',
      `Stream ${streamId} is at revision ${actual}, expected ${String(expected)}`,
      { streamId, expected, actual },
    );
  }
}

/** An event id already stored elsewhere (another stream, or a batch that only partly overlaps). */
export class DuplicateEventIdError extends HcnError {
  constructor(streamId: string, eventIds: readonly string[]) {
    super('EVENTSTORE.DUPLICATE_EVENT_ID', `Event ids already used outside this append to ${streamId}`, {
      streamId,
      eventIds,
    });
  }
}

/** The store cannot be reached or answered with an unexpected failure. */
export class EventStoreUnavailableError extends HcnError {
  constructor(message: string, cause?: unknown) {
    super('EVENTSTORE.UNAVAILABLE', message, {
      cause: cause instanceof Error ? cause.message : String(cause),
    });
  }
}

/**
 * The store refused the data itself (PostgreSQL's data exceptions, e.g. a NUL character in text): not an outage,
 * and the same request would fail again.
 */
export class EventStoreDataRejectedError extends HcnError {
  constructor(message: string) {
    super('EVENTSTORE.DATA_REJECTED', message);
  }
}

/** The append request itself is malformed (empty batch, bad stream id, bad expected revision). */
export class InvalidAppendError extends HcnError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('EVENTSTORE.INVALID_APPEND', message, details);
  }
}
