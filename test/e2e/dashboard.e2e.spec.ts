import { KafkaMessageBus } from '@hcn/messaging';
import {
  AppProcess,
  describeWithKafka,
  describeWithPostgres,
  eventually,
  testKafkaBrokers,
} from '@hcn/testing';
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
import { RestStep, expectedCandidates, expectedTitle, shownHops, tableRows } from './dashboard-page';

const { buildWeb } = require('../../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

const TTL_S = 3;
const INTERVAL_S = 0.5;
const MiB = 2 ** 20;

/**
 * The dashboard in headless Chromium against a real hub + projector (real PostgreSQL, real Kafka) and two real
 * agents, one in the spec's process and one as its own OS process (killed with SIGKILL): the page lists the
 * nodes, shows each domain's counts and capacity bars as /v1/domains has them, follows a submitted workload
 * through its states without a reload, shows every hop of its delegation chain (a rejection and fallback
 * included) with candidates, reasons and scores, shows quota usage live, and turns the killed agent's node
 * offline. Screenshots: test-artifacts/dashboard.
 */
describeWithPostgres('dashboard in a browser (hub, projector, agents, headless Chromium)', () => {
  describeWithKafka('with a broker', () => {
    describeWithBrowser('with Chromium', () => {
      let h: HubHarness;
      let bus: KafkaMessageBus;
      let browser: Browser;
      let page: Page;
      let dataRoot: string;
      let gpuBox: Agent | undefined;
      let cpuBox: AppProcess | undefined;
      const shot = (name: string) =>
        page.screenshot({ path: artifactPath('dashboard', `${name}.png`), fullPage: true });
      const rows = (testId: string) => tableRows(page, testId);
      const sameDocument = async () =>
        expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);

      /** The in-process agent: declared GPUs, the label the rejection scenario asks for. */
      async function startGpuBox(): Promise<Agent> {
        const file = join(dataRoot, 'gpu-box.yaml');
        writeFileSync(
          file,
          'devices:\n  - vendor: nvidia\n    model: H100\n    memory: 80Gi\n    count: 2\n',
        );
        const config = loadAgentConfig({
          HCN_AGENT_CONFIG: file,
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'web-east',
          HCN_DATA_DIR: join(dataRoot, 'gpu-box'),
          HCN_LABELS: 'name=gpu-box,tier=fast',
        });
        const agent = new Agent(config, bus);
        await agent.start();
        return agent;
      }

      /** The agent in its own OS process (apps/agent/src/main.ts over Kafka). */
      function startCpuBox(): AppProcess {
        return new AppProcess('cpu-box', 'apps/agent/src/main.ts', {
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'web-west',
          HCN_DATA_DIR: join(dataRoot, 'cpu-box'),
          HCN_LABELS: 'name=cpu-box',
          KAFKA_BROKERS: testKafkaBrokers().join(','),
        }).start();
      }

      beforeAll(async () => {
        buildWeb(false);
        dataRoot = mkdtempSync(join(tmpdir(), 'hcn-web-'));
        bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-web-spec' });
        h = await startHubHarness(
          { HCN_NODE_TTL_SECONDS: String(TTL_S), HCN_HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S) },
          bus,
        );
        cpuBox = startCpuBox();
        [gpuBox, browser] = await Promise.all([startGpuBox(), launchChromium()]);
        page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      }, 90000);

      afterAll(async () => {
        await browser?.close();
        await cpuBox?.kill('SIGKILL');
        await gpuBox?.stop().catch(() => undefined);
        await h?.close();
        await bus?.close();
        if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
      });

      it('signs in from #token=, shows the domain tree with counts and capacity bars, and lists the nodes', async () => {
        await page.goto(`${h.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
        await page.waitForSelector('[data-testid=feed-state]:text("live")');
        expect(page.url()).not.toContain(TEST_ADMIN_TOKEN); // the token leaves the address bar
        await page.waitForSelector('[data-testid=domain-web-east] [data-testid=online]:text("1 online")');
        await page.waitForSelector('[data-testid=domain-web-west] [data-testid=online]:text("1 online")', {
          timeout: 60000, // the agent process starts and joins over Kafka
        });
        await eventually('the bars show what /v1/domains reports', async () => {
          const [domains, nodes] = await Promise.all([
            h.request('GET', '/v1/domains?limit=1000'),
            h.request('GET', '/v1/nodes?limit=100'),
          ]);
          const bars = await domainBars();
          return domains.body.items.every((d: any) => {
            const shown = bars[d.domainId];
            const accelerators =
              d.capacity.accelerators?.total ??
              nodes.body.items
                .filter((n: any) => n.domainId === d.domainId && n.status === 'online')
                .reduce((sum: number, n: any) => sum + n.accelerators, 0);
            return (
              shown?.counts === `${d.nodes.online} online ${d.nodes.offline} offline` &&
              shown['cpu-busy'] === `${d.capacity.cpuCores.total}` &&
              shown['memory-reserved'] === `${d.reserved.memoryBytes}/${d.capacity.memoryBytes.total}` &&
              (accelerators === 0 ||
                shown.accelerators ===
                  `${d.capacity.accelerators?.allocated ?? d.reserved.accelerators}/${accelerators}`)
            );
          });
        });
        expect((await domainBars())['web-east'].accelerators).toMatch(/\/2$/); // two declared H100s
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
      }, 90000);

      /** Per domain on the overview: the counts, and `used/total` of each bar (CPU busy: total only). */
      function domainBars(): Promise<Record<string, Record<string, string>>> {
        return page.$$eval('[data-testid^=domain-]', (els) =>
          Object.fromEntries(
            els.map((el) => {
              const bars = [...el.querySelectorAll('.bar[data-testid]')].map((b) => {
                const id = b.getAttribute('data-testid')!;
                const total = b.getAttribute('data-total');
                return [id, id === 'cpu-busy' ? total : `${b.getAttribute('data-used')}/${total}`];
              });
              const counts = [...el.querySelectorAll('.counts > span')]
                .map((c) => (c as unknown as { innerText: string }).innerText)
                .join(' ');
              return [
                el.getAttribute('data-testid')!.slice('domain-'.length),
                { counts: counts.replace(/\s+/g, ' ').trim(), ...Object.fromEntries(bars) },
              ];
            }),
          ),
        );
      }

      it('shows a workload submitted through the API, its state changes and its chain with a rejection, without a reload', async () => {
        await page.click('nav a:text("Workloads")');
        await page.evaluate(() => ((globalThis as any).__sameDocument = true));
        // Under a parent that schedules by locality, a preferred site that fits in aggregate but on no single
        // node: one node has the label, too little memory; the other the memory, not the label. It rejects; the
        // parent falls back to web-east.
        for (const [domainId, parentId, policy] of [
          ['web', null, 'locality'],
          ['web-east', 'web', undefined],
          ['web-west', 'web', undefined],
          ['web-lure', 'web', undefined],
        ])
          expect((await h.request('POST', '/v1/domains', { domainId, parentId, policy })).status).toBe(201);
        for (const [hostname, memoryBytes, tier] of [
          ['lure-small', 64 * MiB, 'fast'],
          ['lure-big', 64 * 2 ** 30, 'slow'],
        ] as const) {
          const r = await h.request('POST', '/v1/agents/register', {
            ...registrationBody({ domainId: 'web-lure', hostname, memoryBytes, labels: { tier } }),
          });
          expect(r.status).toBe(200);
        }
        const submitted = await h.request('POST', '/v1/workloads', {
          name: 'web-e2e',
          command: 'sh',
          args: ['-c', 'echo hello from the dashboard spec; sleep 6; echo bye'],
          resources: { cpuMillis: 500, memoryBytes: 2 ** 27 },
          constraints: { labels: [{ key: 'tier', op: '=', value: 'fast' }], preferDomains: ['web-lure'] },
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
        await sameDocument();
        await shot('workloads');

        await page.click('[data-testid=workload-link]:text("web-e2e")');
        await page.waitForSelector('[data-testid=detail-status]:text("completed")');
        const view = (await h.request('GET', `/v1/workloads/${submitted.body.workloadId}`)).body;
        const steps: RestStep[] = view.delegations.flatMap((d: any) => d.steps);
        const rejection = steps.find((s) => s.type === 'DelegationRejected');
        expect(rejection?.data.scope).toBe('web-lure');
        const filtered = steps.flatMap((s) => s.data.candidates ?? []).filter((c) => !c.accepted);
        expect(filtered.some((c) => c.reason?.startsWith('FILTER.'))).toBe(true);
        expect(steps.flatMap((s) => s.data.candidates ?? []).some((c) => c.score !== undefined)).toBe(true);
        await eventually(
          'every hop on the timeline',
          async () => (await shownHops(page)).length === steps.length,
        );
        const hops = await shownHops(page);
        expect(hops.map((hop) => hop.type)).toEqual(steps.map((s) => s.type));
        steps.forEach((step, i) => {
          expect(hops[i].title.startsWith(expectedTitle(step))).toBe(true);
          expect(hops[i].candidates).toEqual(expectedCandidates(step));
        });
        await page.waitForSelector('[data-testid=logs]:has-text("hello from the dashboard spec")');
        // The allocation's measured usage (its cgroup, sent with its end) as the REST view has it.
        const [allocation] = view.allocations;
        expect(allocation.usage.memoryPeakBytes).toBeGreaterThan(0);
        const cpuCells = await page
          .locator('[data-testid=allocations] [data-testid=cpu-seconds]')
          .allTextContents();
        expect(cpuCells).toEqual([allocation.usage.cpuSeconds.toFixed(1)]);
        await shot('workload-detail');
      }, 60000);

      it('shows a namespace quota, used against hard, following a workload that holds some of it, without a reload', async () => {
        await page.click('nav a:text("Quotas")');
        const put = await h.request('PUT', '/v1/quotas/team-web', {
          limits: { cpuMillis: 2000, memoryBytes: 1024 * MiB },
        });
        expect(put.status).toBe(200);
        const cpu = '[data-testid=quota-team-web] .bar >> nth=0';
        await page.waitForSelector(`${cpu} >> text="0 cores / 2 cores"`);
        const submitted = await h.request('POST', '/v1/workloads', {
          namespace: 'team-web',
          name: 'quota-holder',
          command: 'sh',
          args: ['-c', 'sleep 60'],
          resources: { cpuMillis: 500, memoryBytes: 256 * MiB },
        });
        expect(submitted.status).toBe(201);
        await page.waitForSelector(`${cpu} >> text="0.5 cores / 2 cores"`, { timeout: 10000 });
        const rest = (await h.request('GET', '/v1/quotas/team-web')).body;
        expect(rest.used.cpuMillis).toBe(500);
        expect(await page.innerText('[data-testid=quota-team-web]')).toContain('256 MiB / 1.0 GiB');
        await shot('quotas');
        const deleted = await h.request('DELETE', `/v1/workloads/${submitted.body.workloadId}`);
        expect(deleted.status).toBe(202);
        await page.waitForSelector(`${cpu} >> text="0 cores / 2 cores"`, { timeout: 10000 }); // released
        await sameDocument();
      }, 40000);

      it('turns an agent killed with SIGKILL offline on the page within TTL + interval, without a reload', async () => {
        await page.click('nav a:text("Nodes")');
        await cpuBox!.kill('SIGKILL');
        const killedAt = Date.now();
        await eventually(
          'cpu-box offline',
          async () => {
            const r = await rows('nodes-table');
            return r.some((cells) => cells[2] === 'web-west' && cells[0] === 'offline');
          },
          15000,
        );
        const after = Date.now() - killedAt;
        console.log(`the killed agent showed offline after ${after} ms`);
        expect(after).toBeLessThanOrEqual((TTL_S + INTERVAL_S) * 1000 + 2000);
        expect((await rows('nodes-table')).find((cells) => cells[2] === 'web-east')?.[0]).toBe('online');
        await shot('node-offline');
        await page.click('nav a:text("Overview")');
        await page.waitForSelector('[data-testid=domain-web-west] [data-testid=offline]:text("1 offline")');
        await page.waitForSelector('[data-testid=domain-web-west] [data-testid=online]:text("0 online")');
        // The parent's row is its subtree's: gpu-box online; cpu-box and the two lure nodes offline.
        const children = (await h.request('GET', '/v1/domains?limit=1000')).body.items.filter(
          (d: any) => d.definition?.parentId === 'web',
        );
        const memory = children.reduce((sum: number, d: any) => sum + d.capacity.memoryBytes.total, 0);
        await eventually('the parent rolls up its subtree', async () => {
          const web = (await domainBars()).web;
          return web?.counts === '1 online 3 offline' && web['memory-reserved'] === `0/${memory}`;
        });
        await sameDocument();
        await shot('overview-offline');
      });

      it('keeps 1,000 more nodes in a windowed table, live (they go offline without heartbeats)', async () => {
        await page.click('nav a:text("Nodes")');
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
        await page.waitForSelector(`${table}[data-rows="1004"]`, { timeout: 20000 });
        const rendered = (await rows('nodes-table')).length;
        expect(rendered).toBeLessThan(60); // windowed: a screenful plus overscan, not 1,004 rows
        await page.$eval(`${table} .vbody`, (el) => el.scrollTo(0, el.scrollHeight));
        await eventually('the last rows render after scrolling', async () =>
          (await rows('nodes-table')).some((cells) => cells[1] === 'vm' || cells[1] === 'fleet-0999'),
        );
        await eventually(
          'every fleet node offline on the page',
          async () => (await page.innerText('[data-testid=node-counts]')).startsWith('1 online / 1004'),
          30000,
        );
        console.log(`1,000 nodes registered, shown, and shown offline in ${Date.now() - started} ms`);
        await shot('fleet-offline');
      }, 60000);

      it('reaches the oldest of more than 1,000 workloads by scrolling (the table fetches the window in view)', async () => {
        const started = Date.now();
        const listed = async (): Promise<number> =>
          (await h.request('GET', '/v1/workloads?limit=1')).body.total;
        const total = (await listed()) + 1050;
        for (let batch = 0; batch < 21; batch++) {
          const statuses = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              h
                .request('POST', '/v1/workloads', {
                  name: `bulk-${String(batch * 50 + i).padStart(4, '0')}`,
                  command: 'true',
                  resources: { cpuMillis: 100, memoryBytes: MiB },
                  constraints: { labels: [{ key: 'tier', op: '=', value: 'none' }] }, // unschedulable: no runs
                })
                .then((r) => r.status),
            ),
          );
          expect(statuses.every((status) => status === 201)).toBe(true);
        }
        await eventually('every workload projected', async () => (await listed()) === total, 30000);
        await page.click('nav a:text("Workloads")');
        const table = '[data-testid=workloads-table]';
        await page.waitForSelector(`${table}[data-rows="${total}"]`, { timeout: 20000 });
        expect((await rows('workloads-table')).length).toBeLessThan(60);
        await page.$eval(`${table} .vbody`, (el) => el.scrollTo(0, el.scrollHeight));
        await eventually('the oldest workload, row ' + total + ', on screen', async () => {
          const shown = await rows('workloads-table');
          return shown[shown.length - 1]?.[0] === 'web-e2e';
        });
        console.log(
          `1,050 workloads submitted and the oldest of ${total} shown in ${Date.now() - started} ms`,
        );
        await shot('workloads-oldest');
      }, 60000);
    });
  });
});
