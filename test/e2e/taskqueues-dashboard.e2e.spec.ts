import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, describeWithRedis, eventuallyExpect, testRedisUrl } from '@hcn/testing';
import Redis from 'ioredis';
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

const VIEWER_TOKEN = 'taskqueue-viewer-token-0123';
const ITEMS = 20;

/**
 * The task queue pages (issue 19 item 5) in headless Chromium against a hub + projector (real PostgreSQL), a real
 * agent (1 core: one instance per task) running real processes, and a real Redis: the list shows the queue, its
 * status, running task and task counts; the queue page shows its tasks in order with their states; `next` pressed
 * on the page starts the first task (its instance runs); input left, output done, rate, ETA and the progress bar
 * follow items the spec moves from the input list to the output list, without a reload; a refused action shows
 * the API's message; cancel and retry work per task; a viewer sees no buttons. Screenshots:
 * test-artifacts/taskqueues.
 */
describeWithPostgres(
  'task queue pages in a browser (hub, projector, an agent, Redis, headless Chromium)',
  () => {
    describeWithRedis('with Redis', () => {
      describeWithBrowser('with Chromium', () => {
        const bus = new MemoryMessageBus();
        const keys = `tq-web-${process.pid}`;
        const input = `${keys}:feed:in`;
        const output = `${keys}:feed:out`;
        let h: HubHarness;
        let agent: Agent;
        let dataDir: string;
        let redis: Redis;
        let browser: Browser;
        let page: Page;
        let queueId: string;
        const shot = (name: string) =>
          page.screenshot({ path: artifactPath('taskqueues', `${name}.png`), fullPage: true });
        const text = (selector: string, on: Page = page) =>
          on
            .$eval(selector, (el) => (el as unknown as { innerText: string }).innerText.trim())
            .catch(() => null);
        const taskStatus = (name: string) => text(`[data-testid=task-${name}] [data-testid=task-status]`);
        const figure = (id: string) => text(`[data-testid=progress] [data-testid=${id}]`);

        beforeAll(async () => {
          buildWeb(false);
          dataDir = mkdtempSync(join(tmpdir(), 'hcn-tq-web-'));
          const tokens = [{ name: 'watcher', token: VIEWER_TOKEN, role: 'viewer', namespaces: ['*'] }];
          h = await startHubHarness(
            {
              HCN_NODE_TTL_SECONDS: '30',
              HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
              HCN_API_TOKENS: JSON.stringify(tokens),
            },
            bus,
          );
          redis = new Redis(testRedisUrl());
          await redis.del(input, output);
          const config = loadAgentConfig({
            HCN_HUB_URL: h.hub.url,
            HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
            HCN_DOMAIN: 'grid-web',
            HCN_DATA_DIR: dataDir,
            HCN_CPU_CORES: '1',
          });
          agent = new Agent(config, bus);
          [browser] = await Promise.all([launchChromium(), agent.start()]);
          page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        }, 90_000);

        afterAll(async () => {
          await browser?.close();
          if (queueId) await h?.request('DELETE', `/v1/taskqueues/${queueId}`).catch(() => undefined);
          await agent?.stop();
          await h?.close();
          await bus.close();
          await redis?.del(input, output).catch(() => undefined);
          await redis?.quit();
          if (dataDir) rmSync(dataDir, { recursive: true, force: true });
        });

        it('lists a queue made through the API and shows its tasks in order, pending', async () => {
          const created = await h.request('POST', '/v1/taskqueues', { name: 'hea', namespace: 'grid' });
          expect(created.status).toBe(201);
          queueId = created.body.queueId;
          // the instances only sleep: the spec plays the workers, moving items between the lists itself
          const task = (name: string, queues: Record<string, string>) =>
            h.request('POST', `/v1/taskqueues/${queueId}/tasks`, {
              name,
              command: '/bin/sh',
              args: ['-c', 'sleep 300'],
              memoryBytes: 16 * 1024 * 1024,
              stopGraceSeconds: 1,
              ...queues,
            });
          const redisUrl = testRedisUrl();
          const queues = {
            inputRedis: redisUrl,
            outputRedis: redisUrl,
            inputQueue: input,
            outputQueue: output,
          };
          expect((await task('feed', queues)).status).toBe(201);
          expect((await task('drain', {})).status).toBe(201);
          await redis.lpush(input, ...Array.from({ length: ITEMS }, (_, i) => `item-${i}`));

          await page.goto(`${h.hub.url}/#token=${TEST_ADMIN_TOKEN}`);
          await page.waitForSelector('[data-testid=feed-state]:text("live")');
          await page.click('nav a:text("Task queues")');
          await eventuallyExpect(async () => {
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-status]')).toBe('idle');
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-counts]')).toBe(
              '2 pending',
            );
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-current]')).toBe('—');
          });
          await shot('list');
          await page.click('[data-testid=taskqueue-hea] [data-testid=taskqueue-link]');
          await page.waitForSelector('[data-testid=tasks-table]');
          await page.evaluate(() => ((globalThis as any).__sameDocument = true));
          const order = await page.$$eval('[data-testid=tasks-table] tbody tr', (rows) =>
            rows.map((r) => r.getAttribute('data-testid')),
          );
          expect(order).toEqual(['task-feed', 'task-drain']);
          expect(await taskStatus('feed')).toBe('pending');
          expect(await taskStatus('drain')).toBe('pending');
          expect(await text('[data-testid=queue-status]')).toBe('idle');
          expect(await text('[data-testid=no-running-task]')).toContain('No task runs');
        }, 60_000);

        it('next on the page starts the first task: its instance runs and its progress shows', async () => {
          await page.click('[data-testid=action-next]');
          await eventuallyExpect(async () => {
            expect(await taskStatus('feed')).toBe('running');
            expect(await text('[data-testid=queue-status]')).toBe('running');
            expect(await text('[data-testid=instances-running]')).toBe('1 running');
            expect(await figure('input-left')).toBe(String(ITEMS));
            expect(await figure('output-done')).toBe('0');
          }, 30_000);
          expect(await taskStatus('drain')).toBe('pending');
          expect(await page.getAttribute('[data-testid=progress-bar]', 'data-fraction')).toBe('0');
          await shot('running');
        }, 60_000);

        it('follows items moved on the real Redis without a reload: input left, output done, rate, ETA, bar', async () => {
          for (let i = 0; i < 8; i++) await redis.rpoplpush(input, output);
          await eventuallyExpect(async () => {
            expect(await figure('input-left')).toBe('12');
            expect(await figure('output-done')).toBe('8');
            expect(await page.getAttribute('[data-testid=progress-bar]', 'data-fraction')).toBe('0.4');
          }, 15_000);
          expect(await figure('rate')).toMatch(/^\d+(\.\d+)?\/s$/);
          expect(await figure('rate')).not.toBe('0.00/s');
          expect(await figure('eta')).toMatch(/^\d+ (s|min)/);
          await shot('progress');
          for (let i = 0; i < 12; i++) await redis.rpoplpush(input, output);
          await eventuallyExpect(async () => {
            expect(await figure('input-left')).toBe('0');
            expect(await figure('output-done')).toBe(String(ITEMS));
            expect(await figure('eta')).toBe('done');
            expect(await page.getAttribute('[data-testid=progress-bar]', 'data-fraction')).toBe('1');
          }, 15_000);
          expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
        }, 60_000);

        it("shows the API's message when an action is refused; pause, resume, cancel and retry work", async () => {
          await page.click('[data-testid=action-pause]');
          await eventuallyExpect(async () => {
            expect(await text('[data-testid=queue-status]')).toBe('paused');
            expect(await text('[data-testid=running-task] h3')).toBe('Paused: feed round 1');
          });
          await page.click('[data-testid=action-next]');
          await eventuallyExpect(async () =>
            expect(await text('[data-testid=action-error]')).toBe(
              'TASKQUEUE.PAUSED: The queue is paused; resume it first',
            ),
          );
          await shot('refused');
          await page.click('[data-testid=action-resume]');
          await eventuallyExpect(async () => {
            expect(await text('[data-testid=queue-status]')).toBe('running');
            expect(await text('[data-testid=action-error]')).toBeNull();
            expect(await text('[data-testid=instances-running]')).toBe('1 running');
          }, 30_000);
          await page.click('[data-testid=task-drain] [data-testid=action-cancel]');
          await eventuallyExpect(async () => expect(await taskStatus('drain')).toBe('cancelled'));
          await page.click('[data-testid=task-drain] [data-testid=action-retry]');
          // while another task runs, a retried one goes back to the queue
          await eventuallyExpect(async () => expect(await taskStatus('drain')).toBe('pending'));
          const queue = (await h.request('GET', `/v1/taskqueues/${queueId}`)).body;
          expect(queue.tasks.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([
            ['feed', 'running'],
            ['drain', 'pending'],
          ]);
        }, 60_000);

        it('the list follows the queue; a viewer sees it without buttons', async () => {
          await page.click('nav a:text("Task queues")');
          await eventuallyExpect(async () => {
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-current]')).toBe('feed');
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-status]')).toBe('running');
            expect(await text('[data-testid=taskqueue-hea] [data-testid=taskqueue-counts]')).toBe(
              '1 running · 1 pending',
            );
          });
          const viewer = await browser.newPage({ viewport: { width: 1200, height: 800 } });
          try {
            await viewer.goto(`${h.hub.url}/#token=${VIEWER_TOKEN}`);
            await viewer.waitForSelector('[data-testid=feed-state]:text("live")');
            await viewer.goto(`${h.hub.url}/#/taskqueues/${queueId}`);
            await viewer.waitForSelector('[data-testid=tasks-table]');
            expect(await text('[data-testid=task-feed] [data-testid=task-status]', viewer)).toBe('running');
            expect(await viewer.$('[data-testid=queue-actions]')).toBeNull();
            expect(await viewer.$('[data-testid=action-cancel]')).toBeNull();
          } finally {
            await viewer.close();
          }
        }, 60_000);
      });
    });
  },
);
