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
  processSpec,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';
import { artifactPath, describeWithBrowser, launchChromium } from '../support/browser';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

/**
 * A node's runtime state (issue 19 item 6, GridCore's Idle/Running/Error) through the API and on the dashboard, with
 * a real agent running real processes (hub + projector on real PostgreSQL, in-process bus, headless Chromium): idle
 * before anything runs; a process that exits 1 turns it to error with that reason; a new one turns it to running;
 * stopping that leaves it idle. `?runtime=` filters on it; the nodes page shows it as a badge, the error on hover,
 * live. Screenshots: test-artifacts/node-runtime.
 */
describeWithPostgres('node runtime state (hub, projector, a real agent)', () => {
  let h: HubHarness;
  let agent: Agent;
  let dataDir: string;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    buildWeb(false);
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-node-runtime-'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    const config = loadAgentConfig({
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-runtime',
      HCN_DATA_DIR: dataDir,
    });
    agent = new Agent(config, bus);
    await agent.start();
  }, 60000);
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    await bus.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const node = async () => {
    const r = await h.request('GET', `/v1/nodes/${agent.nodeId}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const listed = async (runtime: string): Promise<string[]> => {
    const r = await h.request('GET', `/v1/nodes?runtime=${runtime}`);
    expect(r.status).toBe(200);
    return r.body.items.map((n: { nodeId: string }) => n.nodeId);
  };
  const submit = async (script: string): Promise<string> => {
    const body = processSpec({
      args: ['-c', script],
      restartPolicy: { policy: 'never' },
      stopGraceSeconds: 2,
    });
    const r = await h.request('POST', '/v1/workloads', body);
    expect(r.status).toBe(201);
    return r.body.workloadId;
  };

  it('is idle, then error with the reason of a process that exits 1, then running with a new one, then idle', async () => {
    await eventuallyExpect(async () =>
      expect((await node()).runtime).toEqual({ state: 'idle', activeInstances: 0 }),
    );
    expect(await listed('idle')).toEqual([agent.nodeId]);

    const failing = await submit('echo failing; exit 1');
    await eventuallyExpect(async () => {
      const { runtime } = await node();
      expect(runtime).toMatchObject({
        state: 'error',
        activeInstances: 0,
        lastError: { workloadId: failing, reason: 'exited with code 1' },
      });
      expect(Date.parse(runtime.lastError.at)).not.toBeNaN();
    }, 20000);
    const allocationId = (await h.request('GET', `/v1/workloads/${failing}`)).body.instances[0].allocationId;
    expect((await node()).runtime.lastError.allocationId).toBe(allocationId);
    expect(await listed('error')).toEqual([agent.nodeId]);
    expect(await listed('idle')).toEqual([]);
    // the listing and the single node agree
    const items = (await h.request('GET', '/v1/nodes')).body.items;
    expect(items[0].runtime).toEqual((await node()).runtime);

    const sleeper = await submit('exec sleep 60');
    await eventuallyExpect(async () => {
      expect((await node()).runtime).toEqual({ state: 'running', activeInstances: 1 });
    }, 20000);
    expect(await listed('running')).toEqual([agent.nodeId]);
    expect(await listed('error')).toEqual([]);

    expect((await h.request('POST', `/v1/workloads/${sleeper}/stop`, {})).status).toBe(202);
    await eventuallyExpect(async () => {
      expect((await node()).runtime).toEqual({ state: 'idle', activeInstances: 0 });
    }, 20000);
  }, 60000);

  it('refuses an unknown runtime state with 400 NODES.QUERY', async () => {
    const r = await h.request('GET', '/v1/nodes?runtime=busy');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('NODES.QUERY');
  });

  describeWithBrowser('on the dashboard (headless Chromium)', () => {
    let browser: Browser;
    let page: Page;
    const badge = () =>
      page.$eval('[data-testid=nodes-table] .vbody .vrow [data-testid=runtime]', (el) => ({
        state: el.getAttribute('data-state'),
        text: (el as unknown as { innerText: string }).innerText.trim(),
        title: el.getAttribute('title') ?? '',
      }));

    beforeAll(async () => {
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    }, 30000);
    afterAll(async () => browser?.close());

    it('shows the runtime badge with the active count, the last error on hover, and follows it live', async () => {
      await page.goto(`${h.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
      await page.click('nav a:text("Nodes")');
      await page.waitForSelector('[data-testid=nodes-table] [data-testid=runtime]');
      expect(await badge()).toMatchObject({ state: 'idle', text: 'idle 0' });

      const failing = await submit('exit 1');
      await page.waitForSelector('[data-testid=runtime][data-state=error]', { timeout: 20000 });
      const shown = await badge();
      expect(shown.text).toBe('error 0');
      expect(shown.title).toContain('last error: exited with code 1');
      expect(shown.title).toContain(`workload ${failing}`);
      await page.hover('[data-testid=runtime]');
      await page.screenshot({ path: artifactPath('node-runtime', 'error.png'), fullPage: true });
      // the runtime filter of the page
      await page.selectOption('[data-testid=runtime-filter]', 'running');
      await page.waitForSelector('[data-testid=runtime]', { state: 'detached' });
      await page.selectOption('[data-testid=runtime-filter]', '');

      const sleeper = await submit('exec sleep 60');
      await page.waitForSelector('[data-testid=runtime][data-state=running]', { timeout: 20000 });
      expect(await badge()).toMatchObject({ text: 'running 1', title: '1 active allocation' });
      await page.screenshot({ path: artifactPath('node-runtime', 'running.png'), fullPage: true });
      await h.request('POST', `/v1/workloads/${sleeper}/stop`, {});
      await page.waitForSelector('[data-testid=runtime][data-state=idle]', { timeout: 20000 });
    }, 60000);
  });
});
