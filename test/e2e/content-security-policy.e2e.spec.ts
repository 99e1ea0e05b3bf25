import { describeWithPostgres } from '@hcn/testing';
import type { Browser, Page } from 'playwright-core';
import { HubHarness, TEST_ADMIN_TOKEN, startHubHarness } from '../../apps/hub/src/testing/hub-harness';
import { artifactPath, describeWithBrowser, launchChromium } from '../support/browser';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

/**
 * The hub's Content-Security-Policy (helmet) in headless Chromium: the dashboard (bundles, styles, the socket.io
 * change feed) and Swagger UI at /docs on the ops listener load and work without a single CSP violation.
 */
describeWithPostgres('content security policy in a browser (hub, headless Chromium)', () => {
  describeWithBrowser('with Chromium', () => {
    let h: HubHarness;
    let browser: Browser;

    beforeAll(async () => {
      buildWeb(false);
      h = await startHubHarness({ HCN_OPS_HTTP_PORT: '0' });
      browser = await launchChromium();
    }, 90000);
    afterAll(async () => {
      await browser?.close();
      await h?.close();
    });

    /** A fresh page recording every CSP violation (DOM events and console reports). */
    async function watchedPage(): Promise<{ page: Page; violations: () => Promise<string[]> }> {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const logged: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) logged.push(m.text());
      });
      await page.addInitScript(() => {
        const g = globalThis as any; // the page's window (no DOM types in this project)
        const seen: string[] = [];
        g.__cspViolations = seen;
        g.document.addEventListener('securitypolicyviolation', (e: any) =>
          seen.push(`${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      const violations = async () => [
        ...logged,
        ...((await page.evaluate(() => (globalThis as any).__cspViolations)) as string[]),
      ];
      return { page, violations };
    }

    it('loads the dashboard and its live change feed with no violation', async () => {
      const { page, violations } = await watchedPage();
      const response = await page.goto(`${h.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
      await page.waitForSelector('[data-testid=feed-state]:text("live")', { timeout: 20000 });
      await page.screenshot({ path: artifactPath('csp', 'dashboard.png') });
      expect(await violations()).toEqual([]);
      await page.close();
    });

    it('renders Swagger UI at /docs on the ops listener with no violation', async () => {
      const { page, violations } = await watchedPage();
      await page.goto(`${h.hub.opsUrl}/docs`);
      await page.waitForSelector('.swagger-ui .info .title:has-text("HCN hub")', { timeout: 20000 });
      await page.waitForSelector('.swagger-ui .opblock-tag:has-text("workloads")');
      await page.screenshot({ path: artifactPath('csp', 'docs.png') });
      expect(await violations()).toEqual([]);
      await page.close();
    });
  });
});
