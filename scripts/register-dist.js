// Runs the compiled build (npm run build -> dist/): resolves the @hcn/* aliases to dist/libs/<name>/src.
const Module = require('module');
const path = require('path');
const dist = path.join(__dirname, '..', 'dist', 'libs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = /^@hcn\/([a-z-]+)$/.exec(request);
  return resolve.call(this, match ? path.join(dist, match[1], 'src') : request, ...rest);
};
