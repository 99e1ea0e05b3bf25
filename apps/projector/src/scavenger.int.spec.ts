import { MemoryEventStore, PostgresEventStore } from '@hcn/eventstore';
import { createTestDatabase, describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { Client } from 'pg';
import { testEventRegistry, thing } from '../../../libs/eventstore/src/testing/test-events';
import { scavengeSecondsSchema, startScavenger } from './scavenger';

describe('HCN_SCAVENGE_SECONDS', () => {
  it.each([
    [undefined, 600],
    ['0', 0],
    ['30', 30],
  ])('reads %s as %s', (value, seconds) => expect(scavengeSecondsSchema.parse(value)).toBe(seconds));

  it.each(['-1', 'soon'])('refuses %s with a message naming the variable', (value) => {
    const result = scavengeSecondsSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].message).toContain('HCN_SCAVENGE_SECONDS');
  });

  it('does nothing on a store that is not PostgreSQL', async () => {
    const lines: string[] = [];
    await startScavenger(new MemoryEventStore(), 10, (l) => lines.push(l)).stop();
    expect(lines).toEqual([]);
  });
});

describeWithPostgres('scavenger on the PostgreSQL store (real PostgreSQL)', () => {
  it('deletes expired heartbeat-like events on its own, says so, and leaves the retained ones', async () => {
    const db = await createTestDatabase('scavenger');
    const store = await PostgresEventStore.connect({ connectionString: db.url, registry: testEventRegistry });
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      await store.setStreamMetadata('heartbeat-x', { maxAge: 60 });
      for (let n = 0; n < 4; n++) await store.append('heartbeat-x', [thing(n)], 'any');
      await sql.query(
        `UPDATE hcn_events SET recorded_at = now() - interval '1 hour' WHERE stream_id = 'heartbeat-x' AND revision < 3`,
      );
      const lines: string[] = [];
      const scavenger = startScavenger(store, 50, (l) => lines.push(l));
      await eventuallyExpect(async () => {
        const { rows } = await sql.query(`SELECT revision FROM hcn_events WHERE stream_id = 'heartbeat-x'`);
        expect(rows.map((r) => Number(r.revision))).toEqual([3]);
      });
      await scavenger.stop();
      expect(lines[0]).toMatch(/^\[scavenge\] deleted 3 expired events of 1 streams in \d+ ms$/);
    } finally {
      await sql.end();
      await store.close();
      await db.drop();
    }
  });
});
