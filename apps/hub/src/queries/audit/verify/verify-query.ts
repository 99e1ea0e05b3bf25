import { HcnError, ValidationError } from '@hcn/contracts';
import type { VerifyHashChainOptions } from '@hcn/eventstore';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const STREAM = /^[^$][^\s]{0,499}$/;

/** The query of GET /v1/audit/verify as given (strings, or arrays when repeated). */
export interface VerifyQuery {
  readonly stream?: unknown;
  readonly from?: unknown;
  readonly to?: unknown;
  readonly sites?: unknown;
}

/** Whether verify also checks the other sites' parts of this log's delegated workloads (`sites=true|false`). */
export function parseSitesFlag(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  const issue = { path: 'sites', code: 'AUDIT.SITES_INVALID', message: 'sites must be true or false' };
  throw new ValidationError('AUDIT.SITES_INVALID', issue.message, [issue]);
}

/**
 * Parses `stream`, `from` and `to` (ISO-8601 dates or instants with a zone, both optional, inclusive);
 * AUDIT.PERIOD_INVALID for a malformed or empty period, AUDIT.STREAM_INVALID for a malformed stream id.
 */
export function parseVerifyQuery(query: VerifyQuery): VerifyHashChainOptions {
  const from = bound(query.from, 'from');
  const to = bound(query.to, 'to');
  if (from && to && to.getTime() < from.getTime()) {
    throw new HcnError('AUDIT.PERIOD_INVALID', 'to must not be before from', {
      from: query.from,
      to: query.to,
    });
  }
  if (query.stream !== undefined && (typeof query.stream !== 'string' || !STREAM.test(query.stream))) {
    const issue = { path: 'stream', code: 'AUDIT.STREAM_INVALID', message: 'stream must be a stream id' };
    throw new ValidationError('AUDIT.STREAM_INVALID', issue.message, [issue]);
  }
  return {
    ...(typeof query.stream === 'string' ? { streamId: query.stream } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
}

function bound(value: unknown, what: 'from' | 'to'): Date | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' && ISO.test(value) ? value : '';
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(ms)) {
    throw new HcnError('AUDIT.PERIOD_INVALID', `${what} must be an ISO-8601 date or instant with a zone`, {
      [what]: value,
    });
  }
  return new Date(ms);
}
