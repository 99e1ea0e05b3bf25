import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { findChromium } from '../services/chromium';
import { inCi } from './index';

/** Where browser specs leave screenshots (gitignored; CI keeps it as an artifact). */
export const ARTIFACTS = resolve(__dirname, '..', '..', 'test-artifacts');

/** `describe` for suites that drive headless Chromium (`npm test` installs it; HCN_CHROMIUM names another). */
export function describeWithBrowser(name: string, body: () => void): void {
  const reason = process.env.HCN_SKIP_BROWSER ?? (findChromium() ? undefined : 'no chromium binary found');
  if (!reason) return describe(name, body);
  if (inCi) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`Chromium is required with CI=true but unavailable: ${reason}`);
      });
    });
    return;
  }
  console.warn(`!!! SKIPPING "${name}": Chromium unavailable: ${reason} (npm test installs it)`);
  describe.skip(name, body);
}

/** Launches headless Chromium (no sandbox: the test machines run as root). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no chromium binary');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

/** A screenshot path under test-artifacts/<suite>/ (the folder is created). */
export function artifactPath(suite: string, file: string): string {
  const dir = join(ARTIFACTS, suite);
  mkdirSync(dir, { recursive: true });
  return join(dir, file);
}
