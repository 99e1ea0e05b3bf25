import { runCli } from './program';

// `hcn`: the operator CLI (apps/cli/bin/hcn.js starts it from the sources or the build).
runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  now: () => Date.now(),
}).then((status) => process.exit(status));
