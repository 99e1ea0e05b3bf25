import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { progressBar } from '@hcn/platform';
import { Client } from 'pg';
import { RunningPostgres, startPostgresForTests } from '../test/services/postgres';

/** A PostgreSQL server for a benchmark plus a fresh database on it. */
export interface BenchDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts (or reuses DATABASE_URL) PostgreSQL and creates a fresh database for one benchmark. */
export async function benchDatabase(name: string): Promise<BenchDatabase> {
  const server: RunningPostgres = await startPostgresForTests((line) => console.log(`[bench] ${line}`));
  const dbName = `bench_${name}_${Date.now()}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(server.url);
  url.pathname = `/${dbName}`;
  return {
    url: url.toString(),
    stop: async () => {
      const cleanup = new Client({ connectionString: server.url });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await cleanup.end();
      await server.stop();
    },
  };
}

let lastProgressLine = 0;

/**
 * Prints a one-line progress update in place; without a terminal, a line at each tenth of the way or, with
 * `everyMs`, at most one line per that many milliseconds (for counts that move in uneven steps).
 */
export function progress(label: string, done: number, total: number, everyMs?: number): void {
  const line = `[bench] ${label} [${progressBar(done / Math.max(total, 1))}] ${done}/${total}`;
  if (process.stdout.isTTY) return void process.stdout.write(`\r${line}${done >= total ? '\n' : ''}`);
  const now = Date.now();
  const due = everyMs ? now - lastProgressLine >= everyMs : done % Math.max(1, Math.floor(total / 10)) === 0;
  if (done >= total || due) {
    lastProgressLine = now;
    console.log(line);
  }
}

/** Writes a benchmark's figures to bench/results/<name>.json and prints them. */
export function report(name: string, figures: unknown): void {
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const body = JSON.stringify(
    { bench: name, at: new Date().toISOString(), machine: machine(), figures },
    null,
    2,
  );
  writeFileSync(join(dir, `${name}.json`), `${body}\n`);
  console.log(body);
}

function machine(): Record<string, unknown> {
  const os = require('node:os') as typeof import('node:os');
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** Percentile of sorted numbers (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * The hub's V8 flags, as docker-compose's hub command line gives them (NODE_OPTIONS refuses the last two; a
 * spec keeps the two equal): a 64 MiB young generation (fewer scavenges, fewer short-lived objects promoted), and
 * an old generation that starts at 512 MiB with the idle-time memory reducer off, so full collections (their
 * concurrent marking takes a core for 100 ms and more on two cores) come every few minutes instead of every few
 * seconds.
 */
export const HUB_NODE_FLAGS = [
  '--max-semi-space-size=64',
  '--initial-old-space-size=512',
  '--no-memory-reducer',
] as const;

/** Node flags of the hub process: HUB_NODE_FLAGS, plus BENCH_HUB_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
export function hubNodeArgs(): string[] {
  return [...HUB_NODE_FLAGS, ...(process.env.BENCH_HUB_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}

/** Node flags of the projector process: BENCH_PROJECTOR_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
export function projectorNodeArgs(): string[] {
  return (process.env.BENCH_PROJECTOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
}
