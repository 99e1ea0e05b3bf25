import { HcnError } from '@hcn/contracts';
import {
  ConcurrencyError,
  DuplicateEventIdError,
  EventStoreDataRejectedError,
  EventStoreUnavailableError,
} from '../errors';
import type { ExpectedRevision } from '../port';

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  message?: string;
}

/**
 * The append's transaction got its id before a younger transaction wrote the stream, so its events would sort
 * before revisions they follow (HC003). Nothing was written; a fresh transaction succeeds. `append` retries it.
 */
export class StaleTransactionError extends ConcurrencyError {}

/** Translates a `pg` driver error into the port's errors; only this adapter knows PostgreSQL's codes. */
export function translatePgError(
  error: unknown,
  streamId: string,
  expected: ExpectedRevision,
  eventIds: readonly string[] = [],
): Error {
  if (error instanceof HcnError) return error;
  const pg = (error ?? {}) as PgError;
  if (pg.code === 'HC001') return new ConcurrencyError(streamId, expected, Number(pg.detail ?? -1));
  if (pg.code === 'HC003') return new StaleTransactionError(streamId, expected, -1);
  if (pg.code === 'HC002') return new DuplicateEventIdError(streamId, eventIds);
  if (pg.code === '23505' && pg.constraint === 'hcn_events_event_id')
    return new DuplicateEventIdError(streamId, eventIds);
  if (pg.code === '23505') return new ConcurrencyError(streamId, expected, -1);
  // SQLSTATE class 22, data exception: the content is refused (the store is up)
  if (pg.code?.startsWith('22'))
    return new EventStoreDataRejectedError(`PostgreSQL refused the data: ${pg.message ?? pg.code}`);
  return new EventStoreUnavailableError(
    `PostgreSQL event store failed: ${pg.message ?? String(error)}`,
    error,
  );
}
