import { describeWithPostgres, eventually, readWholeLog } from '@hcn/testing';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, registrationBody, startHubHarness } from '../testing/hub-harness';

/** The dotted code of an error answer (RFC 9457 problem, or the older `{ error }` body). */
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};

/**
 * Sites and links in one process: a parent and a child hub, each on its own PostgreSQL database. The child joins with
 * a federation join token, its summaries are recorded on the parent; bad input is refused with a dotted code and
 * writes nothing to the parent's log.
 */
describeWithPostgres('federation: a child site registers with its parent and reports summaries', () => {
  let parent: HubHarness;
  let child: HubHarness;
  let dir: string;
  const siteEvents = async () => (await readWholeLog(parent.store, ['Site'])).length;
  const summaries = (siteId: string, body: unknown, credential?: string) =>
    parent.request('POST', `/v1/federation/sites/${siteId}/summaries`, body, {
      authorization: credential ? `Bearer ${credential}` : '',
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-federation-'));
    parent = await startHubHarness({ ...FAST, HCN_SITE_ID: 'parent' });
  }, 60_000);
  afterAll(async () => {
    await child?.close();
    await parent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses bad join token requests and registrations, writing nothing', async () => {
    const before = await siteEvents();
    const badBody = await parent.request('POST', '/v1/federation/join-tokens', { siteId: 'Not_A_Site' });
    expect([badBody.status, codeOf(badBody.body)]).toEqual([400, 'FEDERATION.JOIN_TOKEN']);
    const viewer = await parent.request(
      'POST',
      '/v1/federation/join-tokens',
      { siteId: 'x' },
      { authorization: '' },
    );
    expect(viewer.status).toBe(401);
    for (const joinToken of [
      'nonsense',
      'fjoin.e30.forged',
      'boot.eyJub2RlSWQiOiJ4IiwiZXhwaXJlc0F0IjoxfQ.x',
    ]) {
      const refused = await parent.request('POST', '/v1/federation/sites', { joinToken, siteId: 'child-a' });
      expect([refused.status, codeOf(refused.body)]).toEqual([401, 'AUTH.INVALID_FEDERATION_JOIN_TOKEN']);
    }
    const issued = await parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'other',
      ttlSeconds: 60,
    });
    const mismatch = await parent.request('POST', '/v1/federation/sites', {
      joinToken: issued.body.token,
      siteId: 'child-a',
    });
    expect([mismatch.status, codeOf(mismatch.body)]).toEqual([403, 'AUTH.FEDERATION_JOIN_TOKEN_MISMATCH']);
    expect(await siteEvents()).toBe(before + 1); // the token issued for `other`, nothing else
  });

  it('lets the child join with its token and records its summaries; lists it with the last summary', async () => {
    const issued = await parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-a',
      ttlSeconds: 600,
    });
    expect(issued.status).toBe(201);
    expect(issued.body.token).toMatch(/^fjoin\./);
    child = await startHubHarness({
      ...FAST,
      HCN_SITE_ID: 'child-a',
      HCN_SITE_REGIONS: 'eu-west',
      HCN_FEDERATION_PARENT_URL: parent.hub.url,
      HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
      HCN_FEDERATION_CREDENTIAL_FILE: join(dir, 'child-a.credential'),
    });
    expect(
      (await child.request('POST', '/v1/agents/register', registrationBody({ cpuCores: 16 }))).status,
    ).toBe(200);
    await eventually(
      'a summary with the child node',
      async () => {
        const site = await parent.request('GET', '/v1/federation/sites/child-a');
        return site.status === 200 && site.body.summary?.cpuMillis.total === 16_000;
      },
      20_000,
    );
    const site = (await parent.request('GET', '/v1/federation/sites/child-a')).body;
    expect(site).toMatchObject({
      siteId: 'child-a',
      status: 'online',
      relation: 'child',
      regions: ['eu-west'],
    });
    expect(site.url).toBe(child.hub.url);
    expect(JSON.stringify(site)).not.toMatch(/Digest/); // no digest of a secret is shown
    const listed = await parent.request('GET', '/v1/federation/sites?relation=child');
    expect(listed.body.items.map((s: { siteId: string }) => s.siteId)).toEqual(['child-a']);
    // paged as every listing: child-a, then the invited `other`, one per page; the single GET has an ETag
    const first = await parent.request('GET', '/v1/federation/sites?limit=1');
    expect([first.body.items[0].siteId, first.body.total]).toEqual(['child-a', 2]);
    const second = await parent.request(
      'GET',
      `/v1/federation/sites?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect([second.body.items.map((s: { siteId: string }) => s.siteId), second.body.nextCursor]).toEqual([
      ['other'],
      null,
    ]);
    const badCursor = await parent.request('GET', '/v1/federation/sites?cursor=nonsense');
    expect([badCursor.status, codeOf(badCursor.body)]).toEqual([400, 'REQUEST.BAD_CURSOR']);
    expect((await parent.request('GET', '/v1/federation/sites/child-a')).headers.get('etag')).toMatch(
      /^"\d+"$/,
    );
    const recorded = await parent.store.readStream('sitesummary-child-a');
    expect(recorded.length).toBeGreaterThan(0);
    expect(await parent.store.getStreamMetadata('sitesummary-child-a')).toEqual({ maxAge: 86400 });
    expect(statSync(join(dir, 'child-a.credential')).mode & 0o777).toBe(0o600);
    const link = await child.request('GET', '/v1/federation/link');
    expect(link.body.parent).toMatchObject({ registered: true, lastError: null });
  }, 60_000);

  it('refuses summaries without, with a foreign or a forged credential, and malformed ones, writing nothing', async () => {
    const { credential } = JSON.parse(
      require('node:fs').readFileSync(join(dir, 'child-a.credential'), 'utf8'),
    ) as { credential: string };
    const good = (await parent.store.readStream('sitesummary-child-a')).at(-1)!.data as { summary: unknown };
    await child.close(); // no more summaries from the child while counting
    child = undefined as unknown as HubHarness;
    const count = async () =>
      (await parent.store.readStream('sitesummary-child-a')).length + (await siteEvents());
    const before = await count();
    const cases: Array<[string, unknown, string | undefined, number, string]> = [
      ['child-a', good.summary, undefined, 401, 'AUTH.SITE_CREDENTIAL_REQUIRED'],
      ['child-a', good.summary, 'an-api-token-0123456789', 401, 'AUTH.INVALID_SITE_CREDENTIAL'],
      [
        'child-a',
        good.summary,
        credential.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        401,
        'AUTH.INVALID_SITE_CREDENTIAL',
      ],
      ['other', good.summary, credential, 403, 'AUTH.SITE_CREDENTIAL_FOREIGN'],
      ['ghost', good.summary, credential.replace('site.child-a.', 'site.ghost.'), 404, 'SITE.NOT_FOUND'],
      ['child-a', { ...(good.summary as object), seq: -1 }, credential, 400, 'FEDERATION.SUMMARY'],
      ['child-a', { nodes: 'many' }, credential, 400, 'FEDERATION.SUMMARY'],
      ['Bad_Id', good.summary, credential, 400, 'FEDERATION.SITE_ID'],
    ];
    for (const [siteId, body, cred, status, code] of cases) {
      const refused = await summaries(siteId, body, cred);
      expect([siteId, refused.status, codeOf(refused.body)]).toEqual([siteId, status, code]);
    }
    expect(await count()).toBe(before);
    expect((await summaries('child-a', good.summary, credential)).status).toBe(202);
  });

  it('takes the child offline after the TTL, back online with its next summary', async () => {
    await eventually(
      'child offline',
      async () => {
        const site = await parent.request('GET', '/v1/federation/sites/child-a');
        return site.body.status === 'offline';
      },
      15_000,
    );
    const { credential } = JSON.parse(
      require('node:fs').readFileSync(join(dir, 'child-a.credential'), 'utf8'),
    ) as { credential: string };
    const good = (await parent.store.readStream('sitesummary-child-a')).at(-1)!.data as { summary: unknown };
    expect((await summaries('child-a', good.summary, credential)).status).toBe(202);
    const types = (await parent.store.readStream('site-child-a')).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['SiteWentOffline', 'SiteCameOnline']);
  }, 30_000);

  it('refuses summaries of a deregistered site (410) and unknown sites for admin actions, writing nothing', async () => {
    const { credential } = JSON.parse(
      require('node:fs').readFileSync(join(dir, 'child-a.credential'), 'utf8'),
    ) as { credential: string };
    const good = (await parent.store.readStream('sitesummary-child-a')).at(-1)!.data as { summary: unknown };
    const gone = await parent.request('DELETE', '/v1/federation/sites/child-a', { reason: 'retired' });
    expect([gone.status, gone.body.events]).toEqual([200, ['SiteDeregistered']]);
    const before = (await parent.store.readStream('sitesummary-child-a')).length + (await siteEvents());
    const refused = await summaries('child-a', good.summary, credential);
    expect([refused.status, codeOf(refused.body)]).toEqual([410, 'SITE.DEREGISTERED']);
    const again = await parent.request('DELETE', '/v1/federation/sites/child-a');
    expect([again.status, codeOf(again.body)]).toEqual([410, 'SITE.DEREGISTERED']);
    const unknown = await parent.request('DELETE', '/v1/federation/sites/nobody');
    expect([unknown.status, codeOf(unknown.body)]).toEqual([404, 'SITE.NOT_FOUND']);
    expect((await parent.request('GET', '/v1/federation/sites/nobody')).status).toBe(404);
    expect((await parent.store.readStream('sitesummary-child-a')).length + (await siteEvents())).toBe(before);
    await eventually('deregistered in the read model', async () => {
      return (await parent.request('GET', '/v1/federation/sites/child-a')).body.status === 'deregistered';
    });
  });
});
