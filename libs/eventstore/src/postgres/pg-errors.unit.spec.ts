import { ConcurrencyError, EventStoreDataRejectedError, EventStoreUnavailableError } from '../errors';
import { translatePgError } from './pg-errors';

describe("PostgreSQL errors as the store port's", () => {
  it.each([
    ['22P05', 'unsupported Unicode escape sequence', EventStoreDataRejectedError],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00', EventStoreDataRejectedError],
    ['08006', 'connection failure', EventStoreUnavailableError],
    ['57P01', 'terminating connection due to administrator command', EventStoreUnavailableError],
    ['HC001', 'wrong expected revision', ConcurrencyError],
  ])('%s (%s)', (code, message, kind) => {
    expect(translatePgError({ code, message, detail: '3' }, 's-1', 'any')).toBeInstanceOf(kind);
  });

  it('a driver error without a SQLSTATE (connection refused) is unavailability', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(translatePgError(error, 's-1', 'any')).toBeInstanceOf(EventStoreUnavailableError);
  });
});
