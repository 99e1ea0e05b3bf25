import type { Pool } from 'pg';
import { EVENT_STORE_MIGRATIONS } from './schema';

const LOCK_KEY = 4_711_001;

/** Applies pending event-store migrations once, under an advisory lock so concurrent hubs do not collide. */
export async function migrateEventStore(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS hcn_eventstore_schema (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT max(version) AS v FROM hcn_eventstore_schema',
    );
    for (let version = (rows[0].v ?? 0) + 1; version <= EVENT_STORE_MIGRATIONS.length; version++) {
      await client.query('BEGIN');
      await client.query(EVENT_STORE_MIGRATIONS[version - 1]);
      await client.query('INSERT INTO hcn_eventstore_schema (version) VALUES ($1)', [version]);
      await client.query('COMMIT');
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}
