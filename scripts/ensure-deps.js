// Installs npm dependencies when they are missing or older than package-lock.json (first `npm start`/`npm test`),
// with `npm ci`: exactly what the lock file pins, and a failure when package.json and the lock file disagree.
const { existsSync, statSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale =
  !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
if (stale) {
  console.log('[hcn] installing npm dependencies (npm ci, from package-lock.json)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('[hcn] npm ci failed; see the output above');
    process.exit(result.status || 1);
  }
}

// The dashboard's bundle (dist/web) is built from apps/web when missing or stale.
require('./build-web').buildWeb(false);
