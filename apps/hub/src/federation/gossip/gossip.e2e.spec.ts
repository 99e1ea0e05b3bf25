import { describeWithPostgres, eventually, readWholeLog } from '@hcn/testing';
import { freePort } from '../../../../../test/services/ports';
import { HubHarness, startHubHarness } from '../../testing/hub-harness';
import { Federation } from '../federation';
import { sealGossip } from './gossip-envelope';

const SECRET = 'gossip-secret-of-the-test-federation-0123456789';
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;
/** How long a site may take to become known to every member (gossip 200 ms, anti-entropy 1 s). */
const DISCOVERY_BOUND_MS = 6000;

/**
 * Discovery without a centre: four sites, each its own hub on its own database (one PostgreSQL server). A, B and C
 * are static peers of each other; D knows only A. Gossip makes D known to all within a bound; D cut off (its gossip
 * stopped: it neither sends nor answers) is aged out by every member, and rejoins when it gossips again.
 */
describeWithPostgres('federation gossip: four sites', () => {
  const ids = ['site-a', 'site-b', 'site-c', 'site-d'];
  const sites = new Map<string, HubHarness>();
  const membershipOf = async (siteId: string, about: string) =>
    (await readWholeLog(sites.get(siteId)!.store, ['Site']))
      .filter((e) => (e.data as { siteId: string }).siteId === about)
      .map((e) => e.type);

  beforeAll(async () => {
    const ports = await Promise.all(ids.map(() => freePort()));
    const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const peersOf = (i: number) =>
      i === 3
        ? `site-a=${url(0)}`
        : [0, 1, 2]
            .filter((j) => j !== i)
            .map((j) => `${ids[j]}=${url(j)}`)
            .join(',');
    for (let i = 0; i < ids.length; i++)
      sites.set(
        ids[i],
        await startHubHarness({
          HCN_HTTP_PORT: String(ports[i]),
          HCN_SITE_ID: ids[i],
          HCN_FEDERATION_PEERS: peersOf(i),
          HCN_FEDERATION_GOSSIP_SECRET: SECRET,
          HCN_FEDERATION_GOSSIP_INTERVAL_MS: '200',
          HCN_FEDERATION_GOSSIP_FANOUT: '2',
          HCN_FEDERATION_GOSSIP_HOPS: '3',
          HCN_FEDERATION_GOSSIP_TTL_MS: '1000',
          HCN_FEDERATION_ANTI_ENTROPY_INTERVAL_MS: '1000',
          HCN_FEDERATION_SITE_TTL_SECONDS: '2',
          HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.5',
          HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
        }),
      );
  }, 120_000);
  afterAll(async () => {
    for (const h of sites.values()) await h.close();
  });

  it('makes a site that joined through one peer known to every member within the bound', async () => {
    const started = Date.now();
    await eventually(
      'every site knows every other, with its summary',
      async () => {
        for (const id of ids) {
          const members = await sites.get(id)!.request('GET', '/v1/federation/members');
          const alive = members.body.items.filter((m: { alive: boolean }) => m.alive);
          if (alive.length !== 3) return false;
          if (alive.some((m: { summary: unknown }) => m.summary === null)) return false; // summaries travel too
        }
        return true;
      },
      DISCOVERY_BOUND_MS,
    );
    const took = Date.now() - started;
    for (const id of ['site-a', 'site-b', 'site-c'])
      expect(await membershipOf(id, 'site-d')).toEqual(['SiteDiscovered']);
    const viaB = (await readWholeLog(sites.get('site-b')!.store, ['SiteDiscovered'])).map((e) => e.data);
    expect(viaB.find((d) => (d as { siteId: string }).siteId === 'site-d')).toMatchObject({
      url: sites.get('site-d')!.hub.url,
    });
    await eventually("D listed as a member in B's read model", async () => {
      const d = await sites.get('site-b')!.request('GET', '/v1/federation/sites/site-d');
      return d.body.relation === 'member' && d.body.status === 'online';
    });
    console.log(`[gossip spec] four sites converged in ${took} ms`);
  }, 30_000);

  it('refuses unsigned, wrongly signed and stale gossip, writing nothing', async () => {
    const a = sites.get('site-a')!;
    const before = (await readWholeLog(a.store, ['Site'])).length;
    const payload = {
      from: 'site-x',
      kind: 'push' as const,
      members: [{ siteId: 'site-x', url: 'http://127.0.0.1:1', heartbeat: 1, hops: 3, version: 0 }],
    };
    const forged = sealGossip('another-secret-0123456789-0123456789-0123', payload, new Date());
    const stale = sealGossip(SECRET, payload, new Date(Date.now() - 10 * 60_000));
    const cases: Array<[unknown, number, string]> = [
      [forged, 401, 'AUTH.INVALID_GOSSIP_SIGNATURE'],
      [stale, 401, 'AUTH.GOSSIP_STALE'],
      [{ ...sealGossip(SECRET, payload, new Date()), extra: 1 }, 400, 'FEDERATION.GOSSIP'],
      [
        sealGossip(SECRET, { ...payload, members: [{ ...payload.members[0], hops: 99 }] }, new Date()),
        400,
        'FEDERATION.GOSSIP_MALFORMED',
      ],
    ];
    for (const [body, status, code] of cases) {
      const refused = await a.request('POST', '/v1/federation/gossip', body, { authorization: '' });
      expect([refused.status, codeOf(refused.body)]).toEqual([status, code]);
    }
    expect((await readWholeLog(a.store, ['Site'])).length).toBe(before);
  });

  it('ages a cut-off site out on every member, and takes it back when it gossips again', async () => {
    const gossip = sites.get('site-d')!.hub.app.get(Federation).gossip!;
    await gossip.stop();
    await eventually(
      'D offline on A, B and C',
      async () => {
        for (const id of ['site-a', 'site-b', 'site-c'])
          if ((await membershipOf(id, 'site-d')).at(-1) !== 'SiteWentOffline') return false;
        return true;
      },
      10_000,
    );
    const members = await sites.get('site-c')!.request('GET', '/v1/federation/members');
    expect(members.body.items.find((m: { siteId: string }) => m.siteId === 'site-d')?.alive).toBe(false);
    gossip.start();
    await eventually(
      'D back online on A, B and C',
      async () => {
        for (const id of ['site-a', 'site-b', 'site-c'])
          if ((await membershipOf(id, 'site-d')).at(-1) !== 'SiteCameOnline') return false;
        return true;
      },
      DISCOVERY_BOUND_MS,
    );
    for (const id of ['site-a', 'site-b', 'site-c'])
      expect(await membershipOf(id, 'site-d')).toEqual([
        'SiteDiscovered',
        'SiteWentOffline',
        'SiteCameOnline',
      ]);
  }, 30_000);
});
