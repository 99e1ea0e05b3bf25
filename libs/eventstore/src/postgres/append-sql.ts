import type { Client, PoolClient } from 'pg';
import type { PreparedEvent } from '../codec';
import type { AppendResult, ExpectedRevision } from '../port';
import { translatePgError } from './pg-errors';

/** A row returned by the append functions. */
export interface AppendRow {
  out_revision: string;
  out_txid: string;
  out_seq: string;
}

/** The port's result of one append row. */
export function toAppendResult(row: AppendRow): AppendResult {
  return {
    nextExpectedRevision: Number(row.out_revision),
    position: { commit: BigInt(row.out_txid), prepare: BigInt(row.out_seq) },
  };
}

/**
 * Appends prepared events through `client` with one call of the store's SQL function. Runs in the client's
 * current transaction when one is open (the concurrency spec holds one open on purpose). When the append
 * conflicts (wrong revision or a stored event id), it checks whether it is a retry of an append already made
 * and then returns that append's result (idempotency), keeping the check off the common path. In a caller's
 * transaction that already wrote something, a `StaleTransactionError` means: roll back and try again.
 */
export async function appendWithClient(
  client: PoolClient | Client,
  streamId: string,
  events: readonly PreparedEvent[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  return (await appendTelling(client, streamId, events, expected)).result;
}

/** `appendWithClient`, telling whether this call stored the events (false: an earlier append of them did). */
export async function appendTelling(
  client: PoolClient | Client,
  streamId: string,
  events: readonly PreparedEvent[],
  expected: ExpectedRevision,
): Promise<{ result: AppendResult; stored: boolean }> {
  const payload = sqlEventsJson(events);
  const ids = events.map((e) => e.eventId);
  try {
    const { rows } = await client.query<AppendRow>({
      name: 'hcn_append',
      text: 'SELECT out_revision, out_txid::text, out_seq::text FROM hcn_append($1, $2, $3::jsonb)',
      values: [streamId, String(expected), payload],
    });
    return { result: toAppendResult(rows[0]), stored: true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const retried =
      code === 'HC001' || code === '23505' ? await retriedAppend(client, streamId, ids) : undefined;
    if (retried) return { result: retried, stored: false };
    throw translatePgError(error, streamId, expected, ids);
  }
}

async function retriedAppend(
  client: PoolClient | Client,
  streamId: string,
  ids: string[],
): Promise<AppendResult | undefined> {
  try {
    const { rows } = await client.query<AppendRow>(
      'SELECT out_revision, out_txid::text, out_seq::text FROM hcn_retried_append($1, $2::uuid[])',
      [streamId, ids],
    );
    return rows[0] ? toAppendResult(rows[0]) : undefined;
  } catch (error) {
    if ((error as { code?: string }).code === '25P02') return undefined; // caller's transaction already aborted
    throw translatePgError(error, streamId, 'any', ids);
  }
}

/**
 * Prepared events as the JSON array the SQL functions read (`ch`: content hash, chained by them), built from the
 * canonical JSON that prepare made for the content hash, so data and metadata are serialized once.
 */
export function sqlEventsJson(events: readonly PreparedEvent[]): string {
  const items = events.map(
    (e) =>
      `{"id":${JSON.stringify(e.eventId)},"type":${JSON.stringify(e.type)},"data":${e.json.data},` +
      `"meta":${e.json.metadata},"ch":"${e.contentHash}"}`,
  );
  return `[${items.join(',')}]`;
}
