import { Client } from 'pg';
import { RunningPostgres, startEmbeddedPostgres } from '@hcn/platform';

export type { RunningPostgres };

/** Uses DATABASE_URL when set (after checking it answers), else starts an embedded server. */
export async function startPostgresForTests(log: (line: string) => void): Promise<RunningPostgres> {
  const external = process.env.DATABASE_URL;
  if (external) {
    const client = new Client({ connectionString: external });
    await client.connect();
    await client.end();
    log(`PostgreSQL: using DATABASE_URL`);
    return { url: external, stop: async () => undefined };
  }
  const started = Date.now();
  const running = await startEmbeddedPostgres();
  log(`PostgreSQL: embedded server ready in ${Date.now() - started} ms`);
  return running;
}
