import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** A PostgreSQL server in a child process of its own (not the suite's), which a spec stops and starts. */
export interface PostgresServer {
  readonly process: ChildProcess;
  readonly url: string;
}

/** Starts a server on `dataDir` (created on the first start) and `port`; resolves with its URL once it is ready. */
export function startPostgresServer(dataDir: string, port: number): Promise<PostgresServer> {
  const child = spawn(
    process.execPath,
    ['-r', './scripts/register-ts.js', 'test/services/postgres-process.ts', dataDir, String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) resolve({ process: child, url: ready[1] });
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`postgres process exited ${code}: ${out}`)));
  });
}

/** Stops the server (a clean shutdown) and waits for its process to exit. */
export async function stopPostgresServer(server: PostgresServer | undefined): Promise<void> {
  if (!server || server.process.exitCode !== null) return;
  const exited = new Promise((r) => server.process.once('exit', r));
  server.process.kill('SIGTERM');
  await exited;
}

/** A fresh temporary folder for a server's data directory (`<folder>/pg`); the caller removes it. */
export function postgresDataFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(folder, 0o755); // the postgres user enters it to reach its data directory
  return folder;
}
