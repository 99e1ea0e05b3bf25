import { workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  HubHarness,
  TEST_ADMIN_TOKEN,
  registrationBody,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';
import { siteDelegationLog } from '../../apps/hub/src/testing/site-delegation-log';
import { artifactPath, describeWithBrowser, launchChromium } from '../support/browser';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

const GiB = 2 ** 30;
const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};
const gpu = (index: number) => ({
  index,
  vendor: 'nvidia',
  model: 'A100',
  memoryBytes: 80 * GiB,
  numaNode: 0,
  health: 100,
  interconnect: [],
});

/**
 * The Sites page (issue 21 item 7) in headless Chromium: a parent hub and a child hub (each its own database) linked
 * with a join token. The parent's page lists the child with its state and last summary (nodes, CPU, memory,
 * accelerators by model, regions, last heard); the child stopped, the row turns offline, and back online when the
 * child returns, without a reload (the change feed's `sites` room); delegations to other sites appear in its chart and
 * totals (the namespace rooms). The child's page shows its parent link.
 * Screenshots: test-artifacts/sites.
 */
describeWithPostgres('sites page in a browser (parent and child hubs, headless Chromium)', () => {
  describeWithBrowser('with Chromium', () => {
    let parent: HubHarness;
    let child: HubHarness | undefined;
    let browser: Browser;
    let page: Page;
    let dir: string;
    let childEnv: Record<string, string>;
    const shot = (name: string) =>
      page.screenshot({ path: artifactPath('sites', `${name}.png`), fullPage: true });
    const text = (selector: string) =>
      page
        .$eval(selector, (el) => (el as unknown as { innerText: string }).innerText.trim())
        .catch(() => null);
    const cell = (id: string) => text(`[data-testid=site-child-a] [data-testid=${id}]`);

    beforeAll(async () => {
      buildWeb(false);
      dir = mkdtempSync(join(tmpdir(), 'hcn-sites-web-'));
      parent = await startHubHarness({ ...FAST, HCN_SITE_ID: 'parent' });
      const issued = await parent.request('POST', '/v1/federation/join-tokens', {
        siteId: 'child-a',
        ttlSeconds: 600,
      });
      childEnv = {
        ...FAST,
        HCN_NODE_TTL_SECONDS: '600',
        HCN_SITE_ID: 'child-a',
        HCN_SITE_NAME: 'Child A',
        HCN_SITE_REGIONS: 'eu-west',
        HCN_FEDERATION_PARENT_URL: parent.hub.url,
        HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
        HCN_FEDERATION_CREDENTIAL_FILE: join(dir, 'child-a.credential'),
      };
      child = await startHubHarness(childEnv);
      const node = registrationBody({
        cpuCores: 16,
        memoryBytes: 64 * GiB,
        devices: [gpu(0), gpu(1)],
      });
      const registered = await child.request('POST', '/v1/agents/register', node);
      expect(registered.status).toBe(200);
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await child?.close();
      await parent?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("lists the child with its state and last summary on the parent's page", async () => {
      await page.goto(`${parent.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
      await page.click('nav a:text("Sites")');
      await eventuallyExpect(async () => {
        expect(await cell('site-status')).toBe('online');
        expect(await cell('site-nodes')).toBe('1 online · 0 offline');
        expect(await cell('site-cpu')).toBe('16 of 16 cores free');
        expect(await cell('site-memory')).toBe('64.0 GiB of 64.0 GiB free');
        expect(await cell('site-accelerators')).toBe('2/2 nvidia A100');
        expect(await cell('site-regions')).toBe('eu-west');
      }, 20_000);
      expect(await text('[data-testid=site-child-a] td:first-child')).toContain('Child A');
      expect(await cell('site-last-heard')).toMatch(/^\d+ s ago$/);
      expect(await text('[data-testid=peers-table]')).toBeNull(); // no peer: a sentence, no empty table
      await shot('parent-online');
    }, 60_000);

    it('turns the child offline when it stops, and online when it returns, without a reload', async () => {
      await page.evaluate(() => ((globalThis as any).__sameDocument = true));
      await child!.close();
      child = undefined;
      await eventuallyExpect(async () => expect(await cell('site-status')).toBe('offline'), 20_000);
      await shot('parent-offline');
      child = await startHubHarness(childEnv); // its stored credential; a fresh database: no node now
      await eventuallyExpect(async () => {
        expect(await cell('site-status')).toBe('online');
        expect(await cell('site-nodes')).toBe('0 online · 0 offline');
      }, 30_000);
      expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
      await shot('parent-back-online');
    }, 90_000);

    it('charts the delegations to other sites and counts them per site', async () => {
      await page.goto(`${parent.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
      await page.click('nav a:text("Sites")');
      await page.waitForSelector('[data-testid=site-delegations-none]');
      await page.evaluate(() => ((globalThis as any).__sameDocument = true));
      const workloadId = randomUUID();
      const log = siteDelegationLog(workloadId, 'default', ['child-a', 'peer-z', 'child-a']);
      await parent.store.append(workloadStream(workloadId), log, 'no_stream');
      const count = (site: string, column: string) =>
        text(`[data-testid=site-delegations-${site}] [data-testid=${column}]`);
      await eventuallyExpect(async () => {
        expect([await count('child-a', 'sent'), await count('child-a', 'rejected')]).toEqual(['2', '2']);
        expect([await count('peer-z', 'sent'), await count('peer-z', 'rejected')]).toEqual(['1', '1']);
      }, 20_000);
      const points = await page.getAttribute('[data-testid=chart-site-delegations]', 'data-points');
      expect(Number(points)).toBeGreaterThanOrEqual(3); // a point for each site's hand-overs and the refusals
      expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
      await shot('parent-delegations');
    }, 60_000);

    it("shows the parent link on the child's page", async () => {
      await page.goto(`${child!.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
      await page.click('nav a:text("Sites")');
      await eventuallyExpect(async () => expect(await text('[data-testid=parent-status]')).toBe('linked'));
      expect(await text('[data-testid=site-parent]')).toContain(parent.hub.url);
      await shot('child-parent-link');
    }, 30_000);
  });
});
