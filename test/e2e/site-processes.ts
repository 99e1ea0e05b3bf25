import { PostgresEventStore } from '@hcn/eventstore';
import { AppProcess, TestDatabase, createTestDatabase, eventually, subscriptionPosition } from '@hcn/testing';
import { rmSync } from 'node:fs';
import { freePort } from '../services/ports';

/** The admin token of every hub these specs start. */
export const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
/** The node join token of every hub these specs start. */
export const JOIN_TOKEN = 'e2e-join-token-0123456789';

/** A hub as its own OS process on its own database (the in-process bus: a site's bus is its own). */
export function hubProcess(
  name: string,
  db: TestDatabase,
  port: number,
  env: Record<string, string>,
): AppProcess {
  return new AppProcess(name, 'apps/hub/src/main.ts', {
    DATABASE_URL: db.url,
    HCN_HTTP_PORT: String(port),
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: `e2e-agent-secret-of-${name}-0123456789-0123456789`,
    HCN_ADMIN_TOKEN: ADMIN_TOKEN,
    HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** One call to a hub as its admin (or with `headers` instead): status and JSON body. */
export async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until a hub process answers /readyz (failing at once when it exited). */
export async function ready(hub: AppProcess, url: string): Promise<void> {
  await eventually(
    `${hub.name} ready`,
    async () => {
      if (hub.exitCode !== undefined) throw new Error(`${hub.name} exited ${hub.exitCode}: ${hub.output}`);
      return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    },
    90_000,
  );
}

/** A site of a cross-process spec: its hub process (once started), database, address and a store to read its log. */
export interface SiteProcess {
  db: TestDatabase;
  url: string;
  port: number;
  hub?: AppProcess;
  store: PostgresEventStore;
}

/** A fresh database on a free port for a site, with a store connection of the spec's own (the hub not started). */
export async function openSite(databaseName: string): Promise<SiteProcess> {
  const port = await freePort();
  const db = await createTestDatabase(databaseName);
  const store = await PostgresEventStore.connect({ connectionString: db.url });
  return { db, port, url: `http://127.0.0.1:${port}`, store };
}

/** Kills every site's hub, closes the spec's stores, drops the databases and removes `dir`. */
export async function closeSites(sites: Iterable<SiteProcess>, dir: string | undefined): Promise<void> {
  for (const site of sites) {
    await site.hub?.kill();
    await site.store?.close();
    await site.db?.drop();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Registers a node of `cpuCores` cores (32 GiB) in domain `lab` on a site with the specs' join token. */
export async function registerSiteNode(url: string, hostname: string, cpuCores: number): Promise<void> {
  const node = await call(`${url}/v1/agents/register`, 'POST', {
    joinToken: JOIN_TOKEN,
    domainId: 'lab',
    hostname,
    arch: 'x64',
    os: 'linux',
    cpuCores,
    memoryBytes: 32 * 2 ** 30,
    diskBytes: 2 ** 40,
    labels: {},
    agentVersion: 'spec',
  });
  if (node.status !== 200)
    throw new Error(`registering ${hostname}: ${node.status} ${JSON.stringify(node.body)}`);
}

/**
 * Free CPU of a child in the last summary its parent recorded (read from the parent's log), once the parent's
 * scheduler has folded that summary (its `cluster-view` subscription's position in /metrics); undefined before.
 * The log alone is not enough: under load the hub's view may lag its own log, and it decides on the view.
 */
export async function lastFreeCpu(parent: SiteProcess, siteId: string): Promise<number | undefined> {
  const last = (await parent.store.readStream(`sitesummary-${siteId}`)).at(-1);
  if (last?.type !== 'SiteSummaryRecorded') return undefined;
  const folded = await subscriptionPosition(parent.url, 'cluster-view');
  return folded !== undefined && folded >= Number(last.position.commit)
    ? last.data.summary.cpuMillis.free
    : undefined;
}
