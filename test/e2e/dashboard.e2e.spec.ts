import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Agent } from '../../apps/agent/src/agent';
import { loadAgentConfig } from '../../apps/agent/src/config';
import {
  HubHarness,
  TEST_ADMIN_TOKEN,
  TEST_JOIN_TOKEN,
  registrationBody,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';
import { artifactPath, describeWithBrowser, launchChromium } from '../support/browser';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

/**
 * The dashboard in headless Chromium against a real hub + projector (real PostgreSQL, in-process bus) and two
 * real agents: the page lists the nodes, follows a submitted workload through its states without a reload, shows
 * every hop of its delegation chain, and turns a stopped agent's node offline. Screenshots: test-artifacts/dashboard.
 */
describeWithPostgres('dashboard in a browser (hub, projector, agents, headless Chromium)', () => {
  describeWithBrowser('with Chromium', () => {
    let h: HubHarness;
    let browser: Browser;
    let page: Page;
    let dataRoot: string;
    const agents: Agent[] = [];
    const shot = (name: string) =>
      page.screenshot({ path: artifactPath('dashboard', `${name}.png`), fullPage: true });

    async function agent(name: string, domain: string, yaml = ''): Promise<Agent> {
      const dir = join(dataRoot, name);
      const file = join(dataRoot, `${name}.yaml`);
      writeFileSync(file, yaml || '{}\n');
      const config = loadAgentConfig({
        HCN_AGENT_CONFIG: file,
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: domain,
        HCN_DATA_DIR: dir,
        HCN_LABELS: `name=${name}`,
      });
      const a = new Agent(config, h.bus);
      agents.push(a);
      await a.start();
      return a;
    }

    /** Texts of the visible table rows' cells, one array per row. */
    const rows = (testId: string): Promise<string[][]> =>
      page.$$eval(`[data-testid=${testId}] .vbody .vrow`, (els) =>
        els.map((el) =>
          [...el.children].map((c) => (c as unknown as { innerText: string }).innerText.trim()),
        ),
      );

    beforeAll(async () => {
      buildWeb(false);
      dataRoot = mkdtempSync(join(tmpdir(), 'hcn-web-'));
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '3', HCN_HEARTBEAT_INTERVAL_SECONDS: '0.5' });
      await agent(
        'gpu-box',
        'web-east',
        'devices:\n  - vendor: nvidia\n    model: H100\n    memory: 80Gi\n    count: 2\n',
      );
      await agent('cpu-box', 'web-west');
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    }, 60000);

    afterAll(async () => {
      await browser?.close();
      for (const a of agents) await a.stop().catch(() => undefined);
      await h?.close();
      if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
    });

    it('signs in from #token=, shows the domain tree and lists the nodes with their devices', async () => {
      await page.goto(`${h.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
      await page.waitForSelector('[data-testid=feed-state]:text("live")');
      expect(page.url()).not.toContain(TEST_ADMIN_TOKEN); // the token leaves the address bar
      await page.waitForSelector('[data-testid=domain-web-east] [data-testid=online]:text("1 online")');
      await page.waitForSelector('[data-testid=domain-web-west] [data-testid=online]:text("1 online")');
      await shot('overview');
      await page.click('nav a:text("Nodes")');
      await eventually('two online nodes in the table', async () => {
        const r = await rows('nodes-table');
        return r.length === 2 && r.every((cells) => cells[0] === 'online');
      });
      const table = await rows('nodes-table');
      expect(table.map((cells) => cells[2]).sort()).toEqual(['web-east', 'web-west']);
      const gpu = table.find((cells) => cells[2] === 'web-east')!;
      expect(gpu[6]).toContain('nvidia H100 80.0 GiB (health 100)');
      await shot('nodes');
    });

    it('shows a workload submitted through the API and its state changes, without a reload', async () => {
      await page.click('nav a:text("Workloads")');
      await page.evaluate(() => ((globalThis as any).__sameDocument = true));
      const submitted = await h.request('POST', '/v1/workloads', {
        name: 'web-e2e',
        command: 'sh',
        args: ['-c', 'echo hello from the dashboard spec; sleep 6; echo bye'],
        resources: { cpuMillis: 500, memoryBytes: 2 ** 27 },
      });
      expect(submitted.status).toBe(201);
      const seen = new Set<string>();
      await eventually(
        'the workload appears and completes',
        async () => {
          const row = (await rows('workloads-table')).find((cells) => cells[0] === 'web-e2e');
          if (row) seen.add(row[2]);
          return row?.[2] === 'completed';
        },
        20000,
      );
      // At least one state before completed, seen live.
      expect([...seen].filter((state) => state !== 'completed').length).toBeGreaterThan(0);
      expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
      await shot('workloads');

      await page.click('[data-testid=workload-link]:text("web-e2e")');
      await page.waitForSelector('[data-testid=detail-status]:text("completed")');
      const view = (await h.request('GET', `/v1/workloads/${submitted.body.workloadId}`)).body;
      const steps = view.delegations.flatMap((d: any) => d.steps);
      expect(steps.length).toBeGreaterThanOrEqual(2);
      await eventually(
        'every hop on the timeline',
        async () => (await page.$$('[data-testid=hop]')).length === steps.length,
      );
      const hops = await page.$$eval('[data-testid=hop]', (els) =>
        els.map((el) => el.getAttribute('data-type')),
      );
      expect(hops).toEqual(steps.map((s: any) => s.type));
      const timeline = await page.innerText('[data-testid=timeline]');
      for (const s of steps.filter((x: any) => x.type === 'WorkloadDelegated')) {
        expect(timeline).toContain(`hop ${s.data.hop}: ${s.data.fromScope ?? 'root'} →`);
        for (const c of s.data.candidates)
          expect(timeline).toContain(c.kind === 'node' ? c.id.slice(0, 8) : c.id);
      }
      await page.waitForSelector('[data-testid=logs]:has-text("hello from the dashboard spec")');
      await shot('workload-detail');
    });

    it('turns a stopped agent offline on the page, without a reload', async () => {
      await page.click('nav a:text("Nodes")');
      await agents[1].stop();
      await eventually(
        'cpu-box offline',
        async () => {
          const r = await rows('nodes-table');
          return r.some((cells) => cells[2] === 'web-west' && cells[0] === 'offline');
        },
        15000,
      );
      expect((await rows('nodes-table')).find((cells) => cells[2] === 'web-east')?.[0]).toBe('online');
      expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
      await shot('node-offline');
    });

    it('keeps 1,000 more nodes in a windowed table, live (they go offline without heartbeats)', async () => {
      const started = Date.now();
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            h.request('POST', '/v1/agents/register', {
              ...registrationBody({ domainId: `fleet-${batch % 4}` }),
              hostname: `fleet-${String(batch * 50 + i).padStart(4, '0')}`,
            }),
          ),
        );
      }
      const table = '[data-testid=nodes-table]';
      await page.waitForSelector(`${table}[data-rows="1002"]`, { timeout: 20000 });
      const rendered = (await rows('nodes-table')).length;
      expect(rendered).toBeLessThan(60); // windowed: a screenful plus overscan, not 1,002 rows
      await page.$eval(`${table} .vbody`, (el) => el.scrollTo(0, el.scrollHeight));
      await eventually('the last rows render after scrolling', async () =>
        (await rows('nodes-table')).some((cells) => cells[1] === 'vm' || cells[1] === 'fleet-0999'),
      );
      await eventually(
        'every fleet node offline on the page',
        async () => (await page.innerText('[data-testid=node-counts]')).startsWith('1 online / 1002'),
        30000,
      );
      console.log(`1,000 nodes registered, shown, and shown offline in ${Date.now() - started} ms`);
      await shot('fleet-offline');
    }, 60000);
  });
});
