import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Agent } from '../../apps/agent/src/agent';
import { loadAgentConfig } from '../../apps/agent/src/config';
import {
  HubHarness,
  TEST_ADMIN_TOKEN,
  TEST_JOIN_TOKEN,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';
import { artifactPath, describeWithBrowser, launchChromium } from '../support/browser';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

const OPERATOR_TOKEN = 'dash-operator-token-0123';
const VIEWER_TOKEN = 'dash-viewer-token-01234';
const NS = 'web-ops';
const GiB = 2 ** 30;

/**
 * Acting from the dashboard (issue 20 item 9) in headless Chromium against a hub + projector (real PostgreSQL) and
 * a real agent running real processes: an admin sets a namespace's quota on the quotas page (a bad value refused
 * with the API's code), an operator submits a workload from a template with its parameters filled, restarts,
 * stops and deletes it from its page (a refused restart of the deleted workload shows the code), an admin drains
 * and stops the node; every action goes through a confirm step in the page and shows up without a reload; a
 * viewer sees no buttons, an operator no node or quota buttons. Screenshots: test-artifacts/actions.
 */
describeWithPostgres('dashboard actions in a browser (hub, projector, an agent, headless Chromium)', () => {
  describeWithBrowser('with Chromium', () => {
    const bus = new MemoryMessageBus();
    let h: HubHarness;
    let agent: Agent;
    let dataDir: string;
    let browser: Browser;
    let page: Page;
    let workloadId: string;
    const shot = (name: string) =>
      page.screenshot({ path: artifactPath('actions', `${name}.png`), fullPage: true });
    const text = (selector: string) =>
      page
        .$eval(selector, (el) => (el as unknown as { innerText: string }).innerText.trim())
        .catch(() => null);
    const present = async (selector: string) => (await page.$(selector)) !== null;
    /** Clicks an action's button, then its confirm button in the page. */
    const confirmed = async (testId: string) => {
      await page.click(`[data-testid=${testId}]`);
      await page.click(`[data-testid=${testId}-confirm]`);
    };
    const signIn = async (token: string) => {
      await page.evaluate('sessionStorage.clear()').catch(() => undefined);
      await page.goto(`${h.hub.url}/?fresh=${Date.now()}#token=${token}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
    };

    beforeAll(async () => {
      buildWeb(false);
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-actions-web-'));
      const tokens = [
        { name: 'ops', token: OPERATOR_TOKEN, role: 'operator', namespaces: [NS] },
        { name: 'watcher', token: VIEWER_TOKEN, role: 'viewer', namespaces: ['*'] },
      ];
      h = await startHubHarness(
        {
          HCN_NODE_TTL_SECONDS: '3',
          HCN_HEARTBEAT_INTERVAL_SECONDS: '0.5',
          HCN_API_TOKENS: JSON.stringify(tokens),
        },
        bus,
      );
      const config = loadAgentConfig({
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'act-east',
        HCN_DATA_DIR: dataDir,
        HCN_CPU_CORES: '2',
        HCN_LABELS: 'name=act-box',
      });
      agent = new Agent(config, bus);
      [browser] = await Promise.all([launchChromium(), agent.start()]);
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const defined = await h.request('POST', '/v1/templates', {
        templateId: 'sleeper',
        namespace: NS,
        description: 'sleeps for a while',
        parameters: [
          { name: 'label', description: 'name suffix' },
          { name: 'seconds', default: '300' },
        ],
        spec: {
          name: 'sleep-${label}',
          command: '/bin/sh',
          args: ['-c', 'sleep ${seconds}'],
          resources: { cpuMillis: 100, memoryBytes: 16 * 2 ** 20 },
          stopGraceSeconds: 1,
        },
      });
      expect(defined.status).toBe(201);
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await agent?.stop().catch(() => undefined);
      await h?.close();
      await bus.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('an admin sets a quota on the quotas page, confirmed, shown live; a bad value shows the refusal', async () => {
      await signIn(TEST_ADMIN_TOKEN);
      await page.click('nav a:text("Quotas")');
      await page.fill('[data-testid=quota-namespace]', NS);
      await page.fill('[data-testid=quota-cpuMillis]', '2');
      await page.fill('[data-testid=quota-memoryBytes]', '1024');
      await page.fill('[data-testid=quota-workloads]', '3');
      await page.click('[data-testid=quota-set]');
      expect(await text('[data-testid=quota-set-ask]')).toContain(`Replace the limits of ${NS}?`);
      // nothing is written before the confirm step
      expect((await h.request('GET', `/v1/quotas/${NS}`)).body.limits ?? {}).toEqual({});
      await page.click('[data-testid=quota-set-confirm]');
      await eventuallyExpect(async () => {
        const row = await text(`[data-testid=quota-${NS}]`);
        expect(row).toContain('/ 2 cores');
        expect(row).toContain('/ 1.0 GiB');
        expect(row).toContain('/ 3');
      });
      const quota = await h.request('GET', `/v1/quotas/${NS}`);
      expect(quota.body.limits).toEqual({ cpuMillis: 2000, memoryBytes: GiB, workloads: 3 });

      await page.fill('[data-testid=quota-accelerators]', '-1');
      await confirmed('quota-set');
      await eventuallyExpect(async () =>
        expect(await text('[data-testid=quota-set-error]')).toMatch(/^QUOTA\.LIMITS: /),
      );
      await shot('quota');
    });

    it('an operator submits from a template, then restarts, stops and deletes the workload, each confirmed', async () => {
      await signIn(OPERATOR_TOKEN);
      await page.click('nav a:text("Workloads")');
      await page.click('[data-testid=submit-template-open]');
      await page.waitForSelector('[data-testid=template-select] option[value=sleeper]', {
        state: 'attached',
      });
      await page.selectOption('[data-testid=template-select]', 'sleeper');
      expect(await page.inputValue('[data-testid=param-seconds]')).toBe('300');
      await page.fill('[data-testid=param-label]', 'dash');
      await confirmed('template-submit');
      await page.waitForSelector('[data-testid=template-submitted-link]');
      workloadId = (await text('[data-testid=template-submitted-link]')) as string;
      const submitted = await h.request('GET', `/v1/workloads/${workloadId}`);
      expect([submitted.body.name, submitted.body.namespace]).toEqual(['sleep-dash', NS]);
      // the list shows it without a reload
      await eventuallyExpect(async () =>
        expect(await text('[data-testid=workloads-table]')).toContain('sleep-dash'),
      );
      await shot('submitted');

      await page.click('[data-testid=template-submitted-link]');
      await eventuallyExpect(async () => expect(await text('[data-testid=detail-status]')).toBe('running'));
      const firstAllocation = (await h.request('GET', `/v1/workloads/${workloadId}`)).body.allocations[0]
        .allocationId;

      await page.click('[data-testid=workload-restart]');
      await page.click('[data-testid=workload-restart-cancel]');
      expect(await present('[data-testid=workload-restart-ask]')).toBe(false);
      await confirmed('workload-restart');
      await eventuallyExpect(async () => {
        const w = (await h.request('GET', `/v1/workloads/${workloadId}`)).body;
        expect(w.allocations.length).toBeGreaterThan(1);
        expect(w.status).toBe('running');
      }, 30_000);
      await eventuallyExpect(async () => {
        const rows = await page.$$eval('[data-testid=allocations] tbody tr', (r) => r.length);
        expect(rows).toBeGreaterThan(1); // the page follows the change feed
      }, 15_000);
      expect(firstAllocation).toBeTruthy();

      await confirmed('workload-stop');
      await eventuallyExpect(async () => expect(await text('[data-testid=detail-status]')).toBe('stopped'));
      await confirmed('workload-delete');
      await eventuallyExpect(async () => expect(await text('[data-testid=detail-status]')).toBe('deleted'));
      await confirmed('workload-restart');
      await eventuallyExpect(async () =>
        expect(await text('[data-testid=workload-restart-error]')).toMatch(/^WORKLOAD\.[A-Z_]+: /),
      );
      await shot('workload');
      // an operator acts on workloads only: no node buttons, no quota form
      await page.click('nav a:text("Nodes")');
      await page.click('[data-testid=node-link]');
      await page.waitForSelector('[data-testid=node-panel]');
      expect(await present('[data-testid=node-drain]')).toBe(false);
      await page.click('nav a:text("Quotas")');
      expect(await present('[data-testid=quota-editor]')).toBe(false);
    }, 90_000);

    it('a viewer sees no action buttons', async () => {
      await signIn(VIEWER_TOKEN);
      await page.goto(`${h.hub.url}/#/workloads/${workloadId}`);
      await page.waitForSelector('[data-testid=detail-status]');
      expect(await present('[data-testid=workload-actions]')).toBe(false);
      await page.click('nav a:text("Workloads")');
      await page.waitForSelector('[data-testid=workloads-table]');
      expect(await present('[data-testid=submit-template-open]')).toBe(false);
    });

    it('draws usage and scheduling history per node and per domain with uPlot; a bad query is a 400', async () => {
      await signIn(TEST_ADMIN_TOKEN);
      const [node] = (await h.request('GET', '/v1/nodes')).body.items;
      const usage = await h.request('GET', `/v1/history/usage?nodeId=${node.nodeId}&minutes=15&buckets=30`);
      expect(usage.status).toBe(200);
      expect(usage.body.t).toHaveLength(30);
      expect(usage.body.cpu.filter((v: number | null) => v !== null).length).toBeGreaterThan(0);
      const sched = await h.request('GET', '/v1/history/scheduling?domainId=act-east&minutes=15');
      // the template's workload was placed twice (submit, restart)
      expect(sched.body.placements.reduce((a: number, b: number) => a + b, 0)).toBe(2);
      const both = await h.request('GET', `/v1/history/usage?nodeId=${node.nodeId}&domainId=act-east`);
      expect([both.status, both.body.code]).toEqual([400, 'HISTORY.QUERY']);

      await page.click('nav a:text("Nodes")');
      await page.click('[data-testid=node-link]');
      for (const chart of ['chart-cpu', 'chart-memory', 'chart-scheduling']) {
        await page.waitForSelector(`[data-testid=node-panel] [data-testid=${chart}] canvas`);
      }
      expect(
        Number(await page.getAttribute('[data-testid=node-panel] [data-testid=chart-cpu]', 'data-points')),
      ).toBeGreaterThan(0);
      await shot('node-history');
      await page.click('nav a:text("Overview")');
      await page.waitForSelector('[data-testid=history] [data-testid=chart-cpu] canvas');
      expect(await page.inputValue('[data-testid=history-domain]')).toBe('act-east');
      await shot('domain-history');
    });

    it('an admin drains and stops the node, each confirmed, the status following live', async () => {
      await signIn(TEST_ADMIN_TOKEN);
      await page.click('nav a:text("Nodes")');
      await page.click('[data-testid=node-link]');
      await confirmed('node-drain');
      await eventuallyExpect(async () =>
        expect(await text('[data-testid=node-panel-status]')).toBe('draining'),
      );
      await shot('drained');
      await confirmed('node-stop');
      await eventuallyExpect(async () => {
        const [node] = (await h.request('GET', '/v1/nodes')).body.items ?? [];
        expect(node?.status).toBe('offline');
      }, 30_000);
      await eventuallyExpect(async () =>
        expect(await text('[data-testid=node-panel-status]')).toMatch(/offline|draining/),
      );
      await shot('stopped');
    }, 60_000);
  });
});
