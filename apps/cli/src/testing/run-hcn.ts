import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The repository root (where `npm run hcn` runs). */
export const ROOT = join(__dirname, '..', '..', '..', '..');

/** The launcher the `bin` entry names: the CLI as operators start it. */
export const LAUNCHER = join(ROOT, 'apps', 'cli', 'bin', 'hcn.js');

/** A finished `hcn` run. */
export interface HcnRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running `hcn` (for `logs -f`): its output so far, and its end. */
export interface HcnProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly done: Promise<HcnRun>;
}

/** Starts `hcn` as its own process with the given environment added (anything of the caller's left out). */
export function startHcn(
  env: Record<string, string | undefined>,
  argv: readonly string[],
  stdin?: string,
): HcnProcess {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['HCN_ADDR', 'HCN_TOKEN', 'DATABASE_URL', 'EVENTSTORE_URL']) delete base[name];
  const child = spawn(process.execPath, [LAUNCHER, ...argv], { cwd: ROOT, env: { ...base, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.end(stdin ?? '');
  const done = new Promise<HcnRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `hcn` to its end. */
export function runHcn(
  env: Record<string, string | undefined>,
  argv: readonly string[],
  stdin?: string,
): Promise<HcnRun> {
  return startHcn(env, argv, stdin).done;
}
