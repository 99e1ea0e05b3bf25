// Runs TypeScript sources directly (no build step): swc transpiles, tsconfig paths resolve @hcn/* aliases.
process.env.SWC_NODE_PROJECT =
  process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
