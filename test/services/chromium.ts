import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** The headless Chromium the browser specs drive: HCN_CHROMIUM, or the first Chromium found on the usual paths. */
export function findChromium(): string | undefined {
  const configured = process.env.HCN_CHROMIUM;
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

function run(log: (line: string) => void, command: string, args: string[]): void {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/**
 * Finds Chromium, installing Debian's `chromium` package with apt-get when there is none (needs root, as the
 * test machines run). Throws when it cannot be found or installed; the caller decides whether that is fatal.
 */
export function ensureChromium(log: (line: string) => void): string {
  const found = findChromium();
  if (found) return found;
  if (process.env.HCN_CHROMIUM) throw new Error(`HCN_CHROMIUM=${process.env.HCN_CHROMIUM} does not exist`);
  if (process.getuid?.() !== 0)
    throw new Error('no chromium binary and not root, so apt-get cannot install it');
  log('no chromium binary: installing Debian chromium with apt-get (once, about a minute) ...');
  const started = Date.now();
  run(log, 'apt-get', ['update', '-q']);
  run(log, 'apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium']);
  const installed = findChromium();
  if (!installed) throw new Error('apt-get install chromium succeeded but no chromium binary was found');
  log(`chromium installed at ${installed} in ${Math.round((Date.now() - started) / 1000)} s`);
  return installed;
}
