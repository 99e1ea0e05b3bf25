import { createTestDatabase } from '@hcn/testing';
import { Client } from 'pg';
import { PostgresEventStore } from '../postgres/postgres-event-store';
import { TestEvent, testEventRegistry } from './test-events';

/** What an adapter spec works with: the store (test event types) and a raw client on the same fresh database. */
export interface PostgresRig {
  readonly store: PostgresEventStore<TestEvent>;
  readonly sql: Client;
  /** The fresh database's URL, for specs that need more connections of their own. */
  readonly url: string;
}

/**
 * Registers beforeAll/afterAll for a PostgreSQL adapter spec: a fresh test database named after `name`, a store on
 * it and a raw client; the returned object is filled in before the first test runs.
 */
export function usePostgresRig(name: string): PostgresRig {
  const rig = {} as { store: PostgresEventStore<TestEvent>; sql: Client; url: string };
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const db = await createTestDatabase(name);
    drop = db.drop;
    rig.url = db.url;
    rig.store = await PostgresEventStore.connect<TestEvent>({
      connectionString: db.url,
      registry: testEventRegistry,
    });
    rig.sql = new Client({ connectionString: db.url });
    await rig.sql.connect();
  });
  afterAll(async () => {
    await rig.sql?.end();
    await rig.store?.close();
    await drop?.();
  });
  return rig;
}
