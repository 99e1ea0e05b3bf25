// Runs TypeScript sources directly (no build step): swc transpiles; @hcn/* aliases resolve to the libs'
// sources (also for require() calls, which swc does not rewrite).
const Module = require('module');
const path = require('path');
const root = path.join(__dirname, '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = /^@hcn\/([a-z-]+)$/.exec(request);
  if (!match) return resolve.call(this, request, ...rest);
  const target =
    match[1] === 'testing' ? path.join(root, 'test', 'support') : path.join(root, 'libs', match[1], 'src');
  return resolve.call(this, target, ...rest);
};
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(root, 'tsconfig.json');
require('@swc-node/register');
