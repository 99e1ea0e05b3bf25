import type { Page } from 'playwright-core';
import { ensureChromium } from '../test/services/chromium';
import { launchChromium } from '../test/support/browser';
import {
  BENCH_ADMIN_TOKEN as ADMIN_TOKEN,
  BENCH_JOIN_TOKEN,
  startEmbeddedBenchHub,
} from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { percentile, progress, report } from './support';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const PROBES = Number(process.env.BENCH_PROBES ?? 100);
const TIMEOUT_MS = 15000;
const { buildWeb } = require('../scripts/build-web.js') as { buildWeb: (force: boolean) => boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ROW = '[data-testid=nodes-table] .vbody .vrow';

/** What the page-side probe code uses of the browser (the bench is type-checked without the DOM library). */
interface BrowserGlobals {
  __seen?: number;
  document: {
    querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
    querySelector(selector: string): { textContent: string | null } | null;
  };
  requestAnimationFrame(callback: () => void): number;
}

async function counter(hubUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${hubUrl}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * One probe: the page filters its node table down to one node (by id), a watcher in the page notes (Date.now(), same
 * clock) when that row shows `draining`, then the drain is appended through the API. Latency = row visible minus
 * the moment the request was sent (so it includes the append, the projection, the NOTIFY, the socket.io relay,
 * the REST refetch and React's render).
 */
/** Milliseconds from sending the drain to: its append answered, the read model showing it, the page showing it. */
async function probe(
  page: Page,
  hubUrl: string,
  nodeId: string,
): Promise<{ browser?: number; readModel?: number; append: number }> {
  await page.fill('.filters input', nodeId);
  await page.waitForFunction(
    ([row, id]) => {
      const rows = (globalThis as unknown as BrowserGlobals).document.querySelectorAll(row);
      return rows.length === 1 && rows[0].getAttribute('data-key') === id;
    },
    [ROW, nodeId] as const,
  );
  await page.evaluate((row) => {
    const w = globalThis as unknown as BrowserGlobals;
    w.__seen = undefined;
    const check = (): void => {
      const status = w.document.querySelector(`${row} [data-testid=status]`);
      if (status?.textContent === 'draining') w.__seen = Date.now();
      else w.requestAnimationFrame(check);
    };
    check();
  }, `${ROW}[data-key="${nodeId}"]`);
  const sent = Date.now();
  const response = await fetch(`${hubUrl}/v1/nodes/${nodeId}/drain`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'bench probe' }),
  });
  if (!response.ok) throw new Error(`drain failed: ${response.status} ${await response.text()}`);
  const appended = Date.now();
  // The read model, polled over REST meanwhile: separates the projection from the feed + page.
  let readModel: number | undefined;
  const polling = (async () => {
    while (readModel === undefined && Date.now() - sent < TIMEOUT_MS) {
      const node = (await (
        await fetch(`${hubUrl}/v1/nodes/${nodeId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).json()) as { draining: boolean };
      if (node.draining) readModel = Date.now() - sent;
      else await sleep(10);
    }
  })();
  const seen = await page
    .waitForFunction(() => (globalThis as unknown as BrowserGlobals).__seen, undefined, {
      timeout: TIMEOUT_MS,
      polling: 20,
    })
    .then(async (handle) => ((await handle.jsonValue()) as number) - sent)
    .catch(() => undefined);
  await polling;
  return { browser: seen, readModel, append: appended - sent };
}

/** Latency percentiles (ms); timeouts count as missing samples and are reported. */
function summary(values: Array<number | undefined>) {
  const sorted = values.filter((v): v is number => v !== undefined).sort((a, b) => a - b);
  return {
    samples: sorted.length,
    timeouts: values.length - sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
  };
}

async function phase(
  label: string,
  page: Page,
  hubUrl: string,
  nodes: ReadonlyArray<{ nodeId: string }>,
): Promise<Record<string, ReturnType<typeof summary>>> {
  const results: Array<Awaited<ReturnType<typeof probe>>> = [];
  for (const [i, node] of nodes.entries()) {
    results.push(await probe(page, hubUrl, node.nodeId));
    progress(label, i + 1, nodes.length);
    await sleep(50);
  }
  return {
    browser: summary(results.map((r) => r.browser)),
    readModel: summary(results.map((r) => r.readModel)),
    append: summary(results.map((r) => r.append)),
  };
}

/**
 * `npm run bench -- dashboard`: append -> visible in headless Chromium, on the dashboard's nodes page, with the
 * fleet idle (baseline) and with NODES simulated nodes heartbeating once a second (1,000 heartbeats/s by default).
 * Hub, projector and in-process bus in one process as in `npm start`; PostgreSQL from `npm test`'s services.
 */
export async function run(): Promise<void> {
  buildWeb(false);
  ensureChromium((line) => console.log(`[bench] ${line}`));
  const embedded = await startEmbeddedBenchHub('dashboard', {
    HCN_NODE_TTL_SECONDS: '30',
    HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
    // the simulated fleet sends at a fixed rate: the hub keeps the interval and TTL as configured
    HCN_HEARTBEATS_MAX_PER_SECOND: '0',
    // the simulated fleet neither starts nor lists its allocations: no resends or reconciliation measured
    HCN_START_DEADLINE_SECONDS: '86400',
  });
  const { hub, bus } = embedded;
  const fleet = new FleetSimulator({
    hubUrl: hub.url,
    joinToken: BENCH_JOIN_TOKEN,
    bus,
    domains: ['east', 'west'],
  });
  const browser = await launchChromium();
  try {
    await fleet.grow(NODES, 16, (done) => progress('registering nodes', done, NODES));
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${hub.url}/#token=${ADMIN_TOKEN}`);
    await page.click('nav a:text("Nodes")');
    await page.waitForSelector(`[data-testid=nodes-table][data-rows="${NODES}"]`, { timeout: 60000 });
    const listed = (await (
      await fetch(`${hub.url}/v1/nodes?limit=1000`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as { items: Array<{ nodeId: string; hostname: string }> };
    const hostnames = listed.items;
    const probes = hostnames;
    if (probes.length < 2 * PROBES) throw new Error(`need ${2 * PROBES} probe nodes, have ${probes.length}`);

    const idle = await phase('idle (no heartbeats)', page, hub.url, probes.slice(0, PROBES));

    fleet.start(1000, 20);
    await sleep(5000); // warm-up
    const before = await counter(hub.url, 'hcn_heartbeats_appended_total');
    const from = Date.now();
    const loaded = await phase(
      `under ${NODES} heartbeats/s`,
      page,
      hub.url,
      probes.slice(PROBES, 2 * PROBES),
    );
    const heartbeatsPerSecond =
      ((await counter(hub.url, 'hcn_heartbeats_appended_total')) - before) / ((Date.now() - from) / 1000);
    const lag = /hcn_projection_lag_seconds\{projection="node-state"\} (\S+)/.exec(
      await (await fetch(`${hub.url}/metrics`)).text(),
    );
    fleet.stop();
    report('dashboard', {
      what: 'drain appended through the API -> the node row shows "draining" in headless Chromium (ms)',
      nodes: NODES,
      idle,
      loaded: { ...loaded, heartbeatsPerSecond: Math.round(heartbeatsPerSecond) },
      nodeStateProjectionLagSecondsAtEnd: lag ? Number(lag[1]) : null,
      target: 'loaded browser p99 <= 500 ms',
      met: loaded.browser.p99 <= 500 && loaded.browser.timeouts === 0,
    });
  } finally {
    fleet.stop();
    await browser.close();
    await embedded.close();
  }
}
