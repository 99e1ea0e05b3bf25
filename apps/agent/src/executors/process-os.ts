import { allocationEnv } from '@hcn/contracts';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
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
