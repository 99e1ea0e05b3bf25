import { chainHash, contentHash, genesisHash } from '@hcn/eventstore';
import { Client } from 'pg';
import type { HubHarness } from './hub-harness';

/** Runs one statement on a hub's own database (what someone with write access to it could do). */
export async function onDatabase(h: HubHarness, sql: string, params: unknown[]): Promise<number> {
  const client = new Client({ connectionString: h.database.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Changes the first event of a stream in a hub's database and writes every link of the stream again so that the
 * stream's own chain holds (what someone who can write the database and knows the hashing could do).
 */
export async function rewriteWithFreshHashes(h: HubHarness, streamId: string): Promise<void> {
  const client = new Client({ connectionString: h.database.url });
  await client.connect();
  try {
    await client.query(
      `UPDATE hcn_events SET data = jsonb_set(data, '{spec,name}', '"rewritten"') WHERE stream_id = $1 AND revision = 0`,
      [streamId],
    );
    const { events } = await h.store.readRaw({ streamId, maxCount: 1000 });
    let prev = genesisHash(streamId);
    for (const event of events) {
      const hash = chainHash(prev, contentHash(event));
      await client.query(
        `UPDATE hcn_events SET prev_hash = decode($3, 'hex'), hash = decode($4, 'hex') WHERE stream_id = $1 AND revision = $2`,
        [streamId, event.revision, prev, hash],
      );
      prev = hash;
    }
  } finally {
    await client.end();
  }
}
