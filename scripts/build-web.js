// Builds the dashboard (apps/web, Vite + React) into dist/web when it is missing or older than its sources
// (`--force`: always). Type-checks apps/web first (it is outside the root tsc program). Run by `npm start`,
// `npm test` (through ensure-deps.js), `npm run build` and `npm run build:web`.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const web = join(root, 'apps', 'web');
const built = join(root, 'dist', 'web', 'index.html');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs);
}

function run(label, args) {
  const started = Date.now();
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`[hcn] dashboard build failed at ${label}; see the output above`);
    process.exit(result.status || 1);
  }
  return Date.now() - started;
}

/** Builds when needed; returns true when it built. */
function buildWeb(force) {
  if (!existsSync(web)) return false;
  const sources = [
    join(web, 'src'),
    join(web, 'index.html'),
    join(web, 'vite.config.ts'),
    join(web, 'tsconfig.json'),
  ];
  const lock = join(root, 'package-lock.json');
  const stale =
    force ||
    !existsSync(built) ||
    Math.max(...sources.filter(existsSync).map(newest), existsSync(lock) ? statSync(lock).mtimeMs : 0) >
      statSync(built).mtimeMs;
  if (!stale) return false;
  console.log('[hcn] building the dashboard (apps/web -> dist/web: tsc, vite build) ...');
  const typecheck = run('tsc', [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(web, 'tsconfig.json'),
  ]);
  const bundle = run('vite build', [
    join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    join(web, 'vite.config.ts'),
  ]);
  console.log(`[hcn] dashboard built (type check ${typecheck} ms, bundle ${bundle} ms)`);
  return true;
}

module.exports = { buildWeb };
if (require.main === module) buildWeb(process.argv.includes('--force'));
