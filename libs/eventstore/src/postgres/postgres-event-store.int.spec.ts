import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import { eventStoreContract } from '../testing/event-store.contract';
import { TestEvent, testEventRegistry, thing, uniqueStream } from '../testing/test-events';
import { PostgresEventStore } from './postgres-event-store';

describeWithPostgres('PostgresEventStore (real PostgreSQL)', () => {
  describe('contract', () => {
    eventStoreContract(async () => {
      const db = await createTestDatabase('es_contract');
      const store = await PostgresEventStore.connect<TestEvent>({
        connectionString: db.url,
        registry: testEventRegistry,
      });
      return {
        store,
        teardown: async () => {
          await store.close();
          await db.drop();
        },
      };
    });
  });

  describe('adapter specifics', () => {
    it('validates stored events on read: a corrupted row is refused with EVENT.SCHEMA_INVALID', async () => {
      const db = await createTestDatabase('es_read');
      const store = await PostgresEventStore.connect({
        connectionString: db.url,
        registry: testEventRegistry,
      });
      const client = new Client({ connectionString: db.url });
      try {
        const stream = uniqueStream('corrupt');
        await store.append(stream, [thing(1)], 'no_stream');
        await client.connect();
        await client.query(`UPDATE hcn_events SET data = '{"n":"one"}' WHERE stream_id = $1`, [stream]);
        await store.readStream(stream); // its own first read takes the content it wrote (RecentWrites)
        await expect(store.readStream(stream)).rejects.toMatchObject({ code: 'EVENT.SCHEMA_INVALID' });
      } finally {
        await client.end();
        await store.close();
        await db.drop();
      }
    });

    it('migrates once even when several stores connect at the same time', async () => {
      const db = await createTestDatabase('es_migrate');
      const stores = await Promise.all(
        [1, 2, 3].map(() =>
          PostgresEventStore.connect({ connectionString: db.url, registry: testEventRegistry }),
        ),
      );
      try {
        await stores[0].append('m-1', [thing(1)], 'no_stream');
        expect(await stores[2].readStream('m-1')).toHaveLength(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await db.drop();
      }
    });

    it('reports an unreachable server as EVENTSTORE.UNAVAILABLE', async () => {
      await expect(
        PostgresEventStore.connect({
          connectionString: 'postgres://x:y@127.0.0.1:1/none',
          registry: testEventRegistry,
        }),
      ).rejects.toMatchObject({ code: 'EVENTSTORE.UNAVAILABLE' });
    });
  });
});
