import { RecordedHcnEvent, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SiteProcess,
  call,
  closeSites,
  hubProcess,
  lastFreeCpu,
  openSite,
  ready,
  registerSiteNode,
} from './site-processes';

/** Long enough that the second workload is delegated to A before the parent finds it gone, on a loaded box too. */
const TTL_SECONDS = 6;
const INTERVAL_SECONDS = 0.5;
/** Slack for a loaded box on top of the protocol's bound (TTL + summary interval). */
const SLACK_MS = 5000;
const SITES = ['parent', 'child-a', 'child-b'] as const;
type SiteName = (typeof SITES)[number];

/** A site of the spec, with the settings its hub starts (and restarts) with. */
type Site = SiteProcess & { env: Record<string, string> };

/** The federation events of a parent workload as `Type:site`, in order. */
const hopsOf = (events: readonly RecordedHcnEvent[]) =>
  events
    .filter((e) =>
      [
        'AllocationDelegated',
        'DelegationAccepted',
        'DelegationRejected',
        'AllocationUnknown',
        'AllocationReachable',
      ].includes(e.type),
    )
    .map((e) => `${e.type}:${(e.data as { siteId: string }).siteId}`);

/**
 * Issue 21's partition proof, each site a separate OS process on its own PostgreSQL database: a parent with no nodes
 * of its own and children A (8 cores free) and B (2 of 4 cores free). A workload taken by A runs there; A is SIGKILLed and
 * a second workload submitted at once goes to A (its last summary still says online), in flight: the request finds
 * nobody. Within the TTL plus one summary interval the parent records A offline; the in-flight delegation is rejected
 * (timeout: site offline) and falls back to B, the one A took becomes unknown (not lost, not placed again). A
 * restarted, the parent asks it and records the first workload reachable again; nothing runs twice: each workload has
 * one live allocation, A runs nothing of the second.
 */
describeWithPostgres('federation across processes: a child killed with a delegation in flight', () => {
  const sites = {} as Record<SiteName, Site>;
  let dir: string;

  const start = (name: SiteName) => {
    const site = sites[name];
    site.hub = hubProcess(`${name}-hub`, site.db, site.port, site.env).start();
    return ready(site.hub, site.url);
  };
  const parentEvents = (workloadId: string) => sites.parent.store.readStream(workloadStream(workloadId));
  const siteEvents = async () => (await sites.parent.store.readStream('site-child-a')).map((e) => e.type);
  const freeCpu = (siteId: string) => lastFreeCpu(sites.parent, siteId);
  const submit = async (name: string) => {
    const spec = { name, command: 'true', resources: { cpuMillis: 1000, memoryBytes: 2 ** 28 } };
    const response = await call(`${sites.parent.url}/v1/workloads`, 'POST', spec);
    expect(response.status).toBe(201);
    return response.body.workloadId as string;
  };
  const allocations = async (workloadId: string) =>
    (await call(`${sites.parent.url}/v1/workloads/${workloadId}`, 'GET')).body.allocations as Array<{
      allocationId: string;
      siteId?: string;
      status: string;
    }>;
  /** Workloads a child runs for the parent, by the parent's delegation id. */
  const delegatedTo = async (name: SiteName) => {
    const events = await sites[name].store.readAll({
      filter: { kind: 'eventTypePrefix', prefixes: ['WorkloadSubmitted'] },
    });
    return events.flatMap((e) => {
      const from = (e.data as { delegatedFrom?: { delegationId: string } }).delegatedFrom;
      return from ? [from.delegationId] : [];
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-federation-partition-'));
    for (const name of SITES)
      sites[name] = { ...(await openSite(`fedpart${name.replace('-', '')}`)), env: {} };
    const federation = {
      HCN_FEDERATION_SITE_TTL_SECONDS: String(TTL_SECONDS),
      HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
    };
    // the answer's own timeout far away: the fall back must come from the site going offline
    sites.parent.env = {
      ...federation,
      HCN_SITE_ID: 'parent',
      HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '120',
    };
    await start('parent');
    for (const name of ['child-a', 'child-b'] as const) {
      const issued = await call(`${sites.parent.url}/v1/federation/join-tokens`, 'POST', { siteId: name });
      expect(issued.status).toBe(201);
      sites[name].env = {
        ...federation,
        HCN_SITE_ID: name,
        HCN_NODE_TTL_SECONDS: '3600', // no agents here: nodes stay online, placed allocations wait
        HCN_START_DEADLINE_SECONDS: '3600',
        HCN_FEDERATION_PARENT_URL: sites.parent.url,
        HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
        HCN_FEDERATION_CREDENTIAL_FILE: join(dir, `${name}.credential`),
        HCN_FEDERATION_NAMESPACES: 'default',
      };
    }
    await Promise.all([start('child-a'), start('child-b')]);
    for (const [name, cpuCores] of [
      ['child-a', 8],
      ['child-b', 4],
    ] as const)
      await registerSiteNode(sites[name].url, `${name}-node`, cpuCores);
    // B half busy with work of its own: A, less loaded, is the parent's first choice
    const local = { name: 'local', command: 'true', resources: { cpuMillis: 2000, memoryBytes: 2 ** 28 } };
    expect((await call(`${sites['child-b'].url}/v1/workloads`, 'POST', local)).status).toBe(201);
    await eventually(
      'both children summarised on the parent',
      async () => (await freeCpu('child-a')) === 8000 && (await freeCpu('child-b')) === 2000,
      60_000,
    );
    // the log has B's busy summary; one more summary of B after it gives the parent's view time to apply it (a view
    // still on B's earlier, idle summary once chose B for the first workload)
    const summaries = async () => (await sites.parent.store.readStream('sitesummary-child-b')).length;
    const seen = await summaries();
    await eventually('a later summary of B on the parent', async () => (await summaries()) > seen, 30_000);
  }, 400_000);
  afterAll(() => closeSites(Object.values(sites), dir));

  it('falls back from a killed child within the TTL, keeps what it took unknown, and runs nothing twice once it returns', async () => {
    const first = await submit('taken-by-a');
    await eventually(
      'the first workload taken by a site',
      async () => hopsOf(await parentEvents(first)).some((h) => h.startsWith('DelegationAccepted')),
      120_000,
    );
    expect(hopsOf(await parentEvents(first))).toEqual([
      'AllocationDelegated:child-a',
      'DelegationAccepted:child-a',
    ]);
    await eventually('the parent sees it on A', async () => (await freeCpu('child-a')) === 7000, 30_000);

    await sites['child-a'].hub!.kill('SIGKILL');
    const killedAt = Date.now();
    const second = await submit('in-flight');
    await eventually(
      'the second workload delegated to A, which is gone',
      async () => hopsOf(await parentEvents(second)).includes('AllocationDelegated:child-a'),
      30_000,
    );

    await eventually(
      'A offline on the parent, the in-flight delegation fallen back to B',
      async () => hopsOf(await parentEvents(second)).includes('DelegationAccepted:child-b'),
      (TTL_SECONDS + INTERVAL_SECONDS) * 1000 + SLACK_MS + 30_000,
    );
    const offline = (await sites.parent.store.readStream('site-child-a')).find(
      (e) => e.type === 'SiteWentOffline',
    );
    expect(offline).toBeDefined();
    const offlineMs = Date.parse(offline!.recordedAt) - killedAt;
    console.log(
      `[federation partition] A offline ${offlineMs} ms after the kill (TTL ${TTL_SECONDS * 1000} ms)`,
    );
    expect(offlineMs).toBeLessThanOrEqual((TTL_SECONDS + INTERVAL_SECONDS) * 1000 + SLACK_MS);
    const secondEvents = await parentEvents(second);
    expect(hopsOf(secondEvents)).toEqual([
      'AllocationDelegated:child-a',
      'DelegationRejected:child-a',
      'AllocationDelegated:child-b',
      'DelegationAccepted:child-b',
    ]);
    expect(secondEvents.find((e) => e.type === 'DelegationRejected')!.data).toMatchObject({
      reason: 'timeout',
      detail: 'site child-a went offline',
    });
    // what A took is unknown, not lost, and not placed anywhere else
    await eventually(
      'the first workload unknown',
      async () => (await allocations(first)).some((a) => a.status === 'unknown'),
      30_000,
    );
    expect((await allocations(first)).map((a) => [a.siteId, a.status])).toEqual([['child-a', 'unknown']]);

    await start('child-a');
    await eventually('A back online', async () => (await siteEvents()).at(-1) === 'SiteCameOnline', 60_000);
    await eventually(
      'the first workload reachable again',
      async () => hopsOf(await parentEvents(first)).includes('AllocationReachable:child-a'),
      30_000,
    );
    expect((await allocations(first)).map((a) => [a.siteId, a.status])).toEqual([['child-a', 'placed']]);
    expect(hopsOf(await parentEvents(first))).toEqual([
      'AllocationDelegated:child-a',
      'DelegationAccepted:child-a',
      'AllocationUnknown:child-a',
      'AllocationReachable:child-a',
    ]);
    // nothing runs twice: the second workload has one live allocation (on B), A runs nothing of it
    const live = (await allocations(second)).filter((a) =>
      ['placed', 'running', 'unknown'].includes(a.status),
    );
    expect(live.map((a) => a.siteId)).toEqual(['child-b']);
    const [toA, toB] = (await parentEvents(second))
      .filter((e) => e.type === 'AllocationDelegated')
      .map((e) => (e.data as { allocationId: string }).allocationId);
    expect(await delegatedTo('child-a')).not.toContain(toA);
    expect(await delegatedTo('child-b')).toEqual([toB]);
    expect(await delegatedTo('child-a')).toHaveLength(1); // the first workload only
  }, 300_000);
});
