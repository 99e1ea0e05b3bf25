import { AuditError } from '../errors';

/** A report period: [from, to) in epoch milliseconds. */
export interface Period {
  readonly fromMs: number;
  readonly toMs: number;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function invalid(message: string, details: Record<string, unknown>): AuditError {
  return new AuditError('AUDIT.PERIOD_INVALID', message, details);
}

function instant(text: string, what: string): number {
  const ms = ISO.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : NaN;
  if (!Number.isFinite(ms))
    throw invalid(`${what} must be an ISO-8601 date or instant with a zone`, { [what]: text });
  return ms;
}

/**
 * Parses a report period from `month=YYYY-MM` (UTC calendar month) or `from` and `to` (ISO-8601 dates or instants
 * with a zone; `to` exclusive). AUDIT.PERIOD_INVALID when malformed, empty or given both ways.
 */
export function parsePeriod(query: { from?: unknown; to?: unknown; month?: unknown }): Period {
  const { from, to, month } = query;
  if (month !== undefined) {
    const m = typeof month === 'string' ? MONTH.exec(month) : null;
    if (!m || from !== undefined || to !== undefined) {
      throw invalid('month must be YYYY-MM and cannot be combined with from/to', { month });
    }
    const year = Number(m[1]);
    const index = Number(m[2]) - 1;
    return { fromMs: Date.UTC(year, index, 1), toMs: Date.UTC(year, index + 1, 1) };
  }
  if (typeof from !== 'string' || typeof to !== 'string') {
    throw invalid('give month=YYYY-MM or both from and to', { from, to });
  }
  const period = { fromMs: instant(from, 'from'), toMs: instant(to, 'to') };
  if (period.toMs <= period.fromMs) throw invalid('to must be after from', { from, to });
  return period;
}

/** The overlap of [start, end) with the period, in hours. */
export function hoursWithin(period: Period, startMs: number, endMs: number): number {
  const overlap = Math.min(endMs, period.toMs) - Math.max(startMs, period.fromMs);
  return overlap > 0 ? overlap / 3_600_000 : 0;
}

/** True when the instant lies in the period. */
export function inPeriod(period: Period, ms: number): boolean {
  return ms >= period.fromMs && ms < period.toMs;
}
