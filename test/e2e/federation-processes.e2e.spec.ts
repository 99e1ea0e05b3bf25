import { PostgresEventStore } from '@hcn/eventstore';
import { AppProcess, TestDatabase, createTestDatabase, describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../services/ports';
import { JOIN_TOKEN, call, hubProcess as siteHub, ready } from './site-processes';

const TTL_SECONDS = 3;
const INTERVAL_SECONDS = 0.5;
/** Slack for a loaded box on top of the protocol's bound (TTL + summary interval). */
const SLACK_MS = 2500;

/** A hub of this spec: its site's TTL and summary interval. */
function hubProcess(name: string, db: TestDatabase, port: number, env: Record<string, string>): AppProcess {
  return siteHub(name, db, port, {
    HCN_FEDERATION_SITE_TTL_SECONDS: String(TTL_SECONDS),
    HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
    ...env,
  });
}

/**
 * Sites as separate OS processes, each hub on its own PostgreSQL database: the child joins its parent with a join
 * token and its summaries arrive; the child SIGKILLed, the parent records SiteWentOffline within the TTL plus one
 * summary interval; the child restarted (its stored credential, no new registration), SiteCameOnline.
 */
describeWithPostgres('federation across processes: parent and child hubs, child killed and restarted', () => {
  let parentDb: TestDatabase;
  let childDb: TestDatabase;
  let parentStore: PostgresEventStore;
  let parent: AppProcess;
  let child: AppProcess;
  let parentUrl: string;
  let childUrl: string;
  let dir: string;
  const siteEvents = async () =>
    (await parentStore.readStream('site-child-a')).map((e) => ({
      type: e.type,
      at: Date.parse(e.recordedAt),
    }));
  const summaries = async () => parentStore.readStream('sitesummary-child-a');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-federation-processes-'));
    [parentDb, childDb] = await Promise.all([
      createTestDatabase('fedparent'),
      createTestDatabase('fedchild'),
    ]);
    const [parentPort, childPort] = [await freePort(), await freePort()];
    parentUrl = `http://127.0.0.1:${parentPort}`;
    childUrl = `http://127.0.0.1:${childPort}`;
    parent = hubProcess('parent-hub', parentDb, parentPort, { HCN_SITE_ID: 'parent' }).start();
    await ready(parent, parentUrl);
    parentStore = await PostgresEventStore.connect({ connectionString: parentDb.url });
    const issued = await call(`${parentUrl}/v1/federation/join-tokens`, 'POST', { siteId: 'child-a' });
    expect(issued.status).toBe(201);
    child = hubProcess('child-hub', childDb, childPort, {
      HCN_SITE_ID: 'child-a',
      HCN_SITE_REGIONS: 'eu-west',
      HCN_FEDERATION_PARENT_URL: parentUrl,
      HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
      HCN_FEDERATION_CREDENTIAL_FILE: join(dir, 'child-a.credential'),
    }).start();
    await ready(child, childUrl);
  }, 240_000);
  afterAll(async () => {
    await child?.kill();
    await parent?.kill();
    await parentStore?.close();
    await parentDb?.drop();
    await childDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the child joining and its summaries, with the node it registered', async () => {
    const node = await call(`${childUrl}/v1/agents/register`, 'POST', {
      joinToken: JOIN_TOKEN,
      domainId: 'lab',
      hostname: 'child-node-1',
      arch: 'x64',
      os: 'linux',
      cpuCores: 24,
      memoryBytes: 64 * 2 ** 30,
      diskBytes: 2 ** 40,
      labels: {},
      agentVersion: 'spec',
    });
    expect(node.status).toBe(200);
    await eventually(
      'a summary of the child with its node',
      async () => {
        const last = (await summaries()).at(-1)?.data as
          { summary: { cpuMillis: { total: number } } } | undefined;
        return last?.summary.cpuMillis.total === 24_000;
      },
      30_000,
    );
    expect((await siteEvents()).map((e) => e.type)).toEqual(['SiteJoinTokenIssued', 'SiteRegistered']);
    const registered = (await parentStore.readStream('site-child-a'))[1].data as {
      regions: string[];
      url: string;
    };
    expect(registered).toMatchObject({ regions: ['eu-west'], url: childUrl });
  }, 60_000);

  it('records SiteWentOffline within the TTL plus one interval of a SIGKILL, SiteCameOnline after a restart', async () => {
    await child.kill('SIGKILL');
    const killedAt = Date.now();
    const lastSummaryAt = Date.parse((await summaries()).at(-1)!.recordedAt);
    await eventually(
      'the child offline on the parent',
      async () => (await siteEvents()).some((e) => e.type === 'SiteWentOffline'),
      (TTL_SECONDS + INTERVAL_SECONDS) * 1000 + SLACK_MS + 5000,
    );
    const offlineAt = (await siteEvents()).find((e) => e.type === 'SiteWentOffline')!.at;
    const boundMs = (TTL_SECONDS + INTERVAL_SECONDS) * 1000;
    console.log(
      `[federation processes] offline ${offlineAt - killedAt} ms after the kill, ` +
        `${offlineAt - lastSummaryAt} ms after the last summary (TTL ${TTL_SECONDS * 1000} ms)`,
    );
    expect(offlineAt - lastSummaryAt).toBeGreaterThanOrEqual(TTL_SECONDS * 1000); // not before the TTL
    expect(offlineAt - killedAt).toBeLessThanOrEqual(boundMs + SLACK_MS);

    const summariesBefore = (await summaries()).length;
    child.start(); // same settings: the stored credential, the join token already spent
    await ready(child, childUrl);
    await eventually(
      'the child back online on the parent',
      async () => (await siteEvents()).at(-1)?.type === 'SiteCameOnline',
      30_000,
    );
    expect((await siteEvents()).map((e) => e.type)).toEqual([
      'SiteJoinTokenIssued',
      'SiteRegistered',
      'SiteWentOffline',
      'SiteCameOnline',
    ]);
    expect((await summaries()).length).toBeGreaterThan(summariesBefore);
    const link = await call(`${childUrl}/v1/federation/link`, 'GET');
    expect(link.body.parent).toMatchObject({ registered: true, lastError: null });
  }, 180_000);
});
