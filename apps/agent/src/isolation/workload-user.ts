import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The unprivileged account process workloads run as. */
export interface WorkloadUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** The account the agent creates for workloads when it runs as root and may. */
export const DEDICATED_USER = 'hcn-workload';

/** Looks an account up in /etc/passwd. */
export function lookupUser(name: string): WorkloadUser | undefined {
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined)
      return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * The account for process workloads: `none` keeps the agent's own; a name must exist; `auto` (as root) is the
 * dedicated account, created once with useradd, else `nobody`; `auto` when not root keeps the agent's own (a
 * process cannot switch users then).
 */
export function resolveWorkloadUser(setting: string): WorkloadUser | undefined {
  if (setting === 'none') return undefined;
  if (setting !== 'auto') {
    const user = lookupUser(setting);
    if (!user) throw new Error(`processes.user: no account named ${setting}`);
    return user;
  }
  if (process.getuid?.() !== 0) return undefined;
  const existing = lookupUser(DEDICATED_USER);
  if (existing) return existing;
  const created = spawnSync(
    'useradd',
    [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      DEDICATED_USER,
    ],
    { stdio: 'ignore' },
  );
  return (created.status === 0 ? lookupUser(DEDICATED_USER) : undefined) ?? lookupUser('nobody');
}
