import { AuditError } from '../errors';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO-8601 instant with a zone (`2026-11-01T00:00:00Z`); AUDIT.INSTANT_INVALID otherwise. */
export function parseInstant(text: unknown, what = 'at'): number {
  const ms = typeof text === 'string' && ISO.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) {
    throw new AuditError('AUDIT.INSTANT_INVALID', `${what} must be an ISO-8601 instant with a zone`, {
      [what]: text,
    });
  }
  return ms;
}
