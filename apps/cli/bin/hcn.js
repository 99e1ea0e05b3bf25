#!/usr/bin/env node
// `hcn`, the operator CLI. In a clone it runs the TypeScript sources through the same loader as `npm start`
// (scripts/register-ts.js); where the sources or the loader are absent (the image, `npm prune --omit=dev`) it runs
// the compiled build (`npm run build` -> dist/) through scripts/register-dist.js. HCN_CLI_FROM=dist forces the build.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const sources = path.join(root, 'apps', 'cli', 'src', 'main.ts');
const build = path.join(root, 'dist', 'apps', 'cli', 'src', 'main.js');

function loaderPresent() {
  try {
    require.resolve('@swc-node/register', { paths: [root] });
    return fs.existsSync(path.join(root, 'scripts', 'register-ts.js'));
  } catch {
    return false;
  }
}

if (process.env.HCN_CLI_FROM !== 'dist' && fs.existsSync(sources) && loaderPresent()) {
  require(path.join(root, 'scripts', 'register-ts.js'));
  require(sources);
} else if (fs.existsSync(build)) {
  require(path.join(root, 'scripts', 'register-dist.js'));
  require(build);
} else {
  process.stderr.write(
    'hcn: CLI.NOT_BUILT: neither the sources with their loader nor the build (dist/) are here; run npm ci, or npm run build\n',
  );
  process.exit(2);
}
