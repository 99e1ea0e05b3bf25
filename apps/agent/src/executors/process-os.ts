import { allocationEnv } from '@hcn/contracts';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { resolveProgram } from '../isolation/process-sandbox';
import { ProcessSpec } from './execution.types';

/** A minimal inherited base (PATH, HOME, LANG), the spec's variables (`$(HCN_…)` expanded), then the HCN_* identifiers. */
export function processEnv(spec: ProcessSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG'])
    if (process.env[k] !== undefined) env[k] = process.env[k] as string;
  return { ...env, ...allocationEnv(spec.env, spec) };
}

/** Signals a whole process group; falls back to the leader alone where the group cannot be signalled. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** `mkdir -p` (fs.mkdirSync's recursive mode spins forever on some pseudo filesystems, e.g. under /proc). */
export function makeDir(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return; // not a directory: spawning there reports it
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    makeDir(parent);
    mkdirSync(dir);
  }
}

/** Who and where a command runs as (an allocation's user, directory and environment). */
export interface CommandContext {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Runs `command` (argv; the program found on the context's PATH) in its own process group with no input and its
 * output dropped; resolves with its exit code (128 + n when a signal n ended it), or null when it could not start or
 * did not end within `timeoutMs` (its group is killed).
 */
export function runCommand(
  command: readonly string[],
  context: CommandContext,
  timeoutMs: number,
): Promise<number | null> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      const program = resolveProgram(command[0], context.env.PATH ?? process.env.PATH ?? '');
      child = spawn(program, command.slice(1), { ...context, detached: true, stdio: 'ignore' });
    } catch {
      return resolve(null);
    }
    const timer = setTimeout(() => {
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      resolve(null);
    }, timeoutMs);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL'); // nothing it started outlives the check
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null));
    });
  });
}
