import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const asRoot = process.getuid?.() === 0;

/** `npm start` as root with its data in a 0700 home: one sentence and exit 2, not an initdb stack trace. */
(asRoot ? describe : describe.skip)('npm start as root under a private home', () => {
  it('says in one sentence what to do and exits 2', () => {
    const home = mkdtempSync(join(tmpdir(), 'hcn-root-home-'));
    chmodSync(home, 0o700);
    const run = spawnSync(process.execPath, ['-r', './scripts/register-ts.js', 'apps/embedded/src/main.ts'], {
      env: { ...process.env, HCN_DATA_DIR: join(home, 'hcn', 'data'), DATABASE_URL: '', HCN_HTTP_PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    // logs are JSON lines on stdout (pretty only on a terminal): one fatal line says it, with no stack
    expect(run.stderr.trim()).toBe('');
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; app: string; msg: string; err?: unknown });
    const failures = lines.filter((l) => l.level === 'fatal' || l.level === 'error');
    expect(failures).toHaveLength(1);
    const [line] = failures;
    expect([line.level, line.app, line.err]).toEqual(['fatal', 'embedded', undefined]);
    expect(line.msg).toMatch(/^Embedded PostgreSQL runs as the system user "postgres", which cannot enter /);
    expect(line.msg).toContain(`chmod o+x ${home}`);
  });
});
