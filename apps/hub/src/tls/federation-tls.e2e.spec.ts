import {
  AppProcess,
  describeWithPostgres,
  eventually,
  readWholeLog,
  testCertificateAuthority,
} from '@hcn/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadHubConfig } from '../config';
import { SiteTls } from '../federation/federation.config';
import { callSite } from '../federation/site-client';
import { HubHarness, TEST_ADMIN_TOKEN, registrationBody, startHubHarness } from '../testing/hub-harness';

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};
const codeOf = (body: any): string | undefined => body?.code;
/** A hub's settings besides TLS, as valid as the harness's. */
const BASE_ENV = {
  DATABASE_URL: 'postgres://hcn@127.0.0.1:1/none',
  HCN_AGENT_SECRET: 'test-agent-secret-0123456789-0123456789',
  HCN_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
};

/**
 * TLS between sites: the parent's hub listens on HTTPS with client certificates required (mTLS); the child links to
 * it with its CA and client certificate and its summaries arrive; a caller without a certificate, or with one of
 * another CA, is refused at the handshake. With client certificates only requested, the site-to-site routes refuse
 * such a caller with AUTH.CLIENT_CERTIFICATE_REQUIRED while the API answers it. Bad TLS settings stop start-up.
 */
describeWithPostgres('federation over HTTPS with mTLS', () => {
  let dir: string;
  let ca: ReturnType<typeof testCertificateAuthority>;
  let rogue: ReturnType<typeof testCertificateAuthority>;
  let parent: HubHarness;
  let child: HubHarness | undefined;
  const tlsOf = (files: { cert: string; key: string } | undefined, caFile: string): SiteTls => ({
    ca: readFileSync(caFile, 'utf8'),
    ...(files ? { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') } : {}),
  });
  const admin = { bearer: TEST_ADMIN_TOKEN };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-tls-'));
    ca = testCertificateAuthority(dir, 'sites-ca');
    rogue = testCertificateAuthority(dir, 'rogue-ca');
    const server = ca.issue('parent');
    parent = await startHubHarness({
      ...FAST,
      HCN_SITE_ID: 'parent',
      HCN_HTTP_TLS_CERT: server.cert,
      HCN_HTTP_TLS_KEY: server.key,
      HCN_HTTP_TLS_CA: ca.cert,
      HCN_HTTP_TLS_CLIENT_AUTH: 'require',
    });
  }, 60_000);
  afterAll(async () => {
    await child?.close();
    await parent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('links a child to its parent over HTTPS with its client certificate; summaries arrive', async () => {
    expect(parent.hub.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const childCert = ca.issue('child-a');
    const issued = await callSite(
      `${parent.hub.url}/v1/federation/join-tokens`,
      'POST',
      { siteId: 'child-a', ttlSeconds: 600 },
      { tls: tlsOf(childCert, ca.cert), ...admin },
    );
    expect(issued.status).toBe(201);
    child = await startHubHarness({
      ...FAST,
      HCN_SITE_ID: 'child-a',
      HCN_FEDERATION_PARENT_URL: parent.hub.url,
      HCN_FEDERATION_JOIN_TOKEN: (issued.body as { token: string }).token,
      HCN_FEDERATION_CREDENTIAL_FILE: join(dir, 'child-a.credential'),
      HCN_FEDERATION_TLS_CA: ca.cert,
      HCN_FEDERATION_TLS_CERT: childCert.cert,
      HCN_FEDERATION_TLS_KEY: childCert.key,
    });
    expect(
      (await child.request('POST', '/v1/agents/register', registrationBody({ cpuCores: 12 }))).status,
    ).toBe(200);
    await eventually(
      'a summary with the child node on the parent',
      async () => {
        const last = (await parent.store.readStream('sitesummary-child-a')).at(-1)?.data as
          { summary: { cpuMillis: { total: number } } } | undefined;
        return last?.summary.cpuMillis.total === 12_000;
      },
      20_000,
    );
    const types = (await parent.store.readStream('site-child-a')).map((e) => e.type);
    expect(types).toEqual(['SiteJoinTokenIssued', 'SiteRegistered']);
    expect((await child.request('GET', '/v1/federation/link')).body.parent).toMatchObject({
      registered: true,
      lastError: null,
    });
  }, 60_000);

  it('refuses at the handshake a caller without a certificate or with one of another CA', async () => {
    // every site fact but the linked child's (its summaries keep arriving)
    const written = async () =>
      (await readWholeLog(parent.store, ['Site'])).filter(
        (e) => (e.data as { siteId: string }).siteId !== 'child-a',
      );
    expect(await written()).toEqual([]);
    const stranger = rogue.issue('stranger');
    for (const tls of [tlsOf(undefined, ca.cert), { ...tlsOf(stranger, ca.cert) }]) {
      const refused = callSite(`${parent.hub.url}/v1/federation/sites`, 'POST', { joinToken: 'x' }, { tls });
      await expect(refused).rejects.toThrow(/certificate|socket hang up|ECONNRESET|alert/i);
      const api = callSite(`${parent.hub.url}/v1/federation/sites`, 'GET', undefined, { tls, ...admin });
      await expect(api).rejects.toThrow();
    }
    // the parent's certificate is not one the caller's CA vouches for: the caller refuses it
    await expect(
      callSite(`${parent.hub.url}/readyz`, 'GET', undefined, { tls: tlsOf(ca.issue('c2'), rogue.cert) }),
    ).rejects.toThrow(/certificate/i);
    expect(await written()).toEqual([]);
  });

  it('with certificates only requested, refuses site-to-site calls without one and serves the API', async () => {
    const server = ca.issue('requesting');
    const hub = await startHubHarness({
      HCN_SITE_ID: 'requesting',
      HCN_HTTP_TLS_CERT: server.cert,
      HCN_HTTP_TLS_KEY: server.key,
      HCN_HTTP_TLS_CA: ca.cert,
      HCN_HTTP_TLS_CLIENT_AUTH: 'request',
    });
    try {
      const bare = tlsOf(undefined, ca.cert);
      const stranger = tlsOf(rogue.issue('stranger-2'), ca.cert);
      const registration = { joinToken: 'fjoin.e30.forged', siteId: 'child-x' };
      for (const tls of [bare, stranger]) {
        for (const [path, body] of [
          ['/v1/federation/sites', registration],
          ['/v1/federation/sites/child-x/summaries', {}],
          ['/v1/federation/gossip', {}],
        ] as const) {
          const refused = await callSite(`${hub.hub.url}${path}`, 'POST', body, { tls });
          expect([path, refused.status, codeOf(refused.body)]).toEqual([
            path,
            401,
            'AUTH.CLIENT_CERTIFICATE_REQUIRED',
          ]);
        }
        const api = await callSite(`${hub.hub.url}/v1/federation/sites`, 'GET', undefined, { tls, ...admin });
        expect(api.status).toBe(200);
      }
      // with a certificate of the CA the route's own proof is judged next: the forged join token
      const vouched = tlsOf(ca.issue('child-x'), ca.cert);
      const judged = await callSite(`${hub.hub.url}/v1/federation/sites`, 'POST', registration, {
        tls: vouched,
      });
      expect([judged.status, codeOf(judged.body)]).toEqual([401, 'AUTH.INVALID_FEDERATION_JOIN_TOKEN']);
      expect(await readWholeLog(hub.store, ['Site'])).toEqual([]);
    } finally {
      await hub.close();
    }
  }, 60_000);

  it('refuses bad TLS settings at start-up, naming the setting', async () => {
    const server = ca.issue('settings');
    const other = ca.issue('settings-other');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { HCN_HTTP_TLS_CERT: join(dir, 'missing.crt'), HCN_HTTP_TLS_KEY: server.key },
        /HCN_HTTP_TLS_CERT: cannot read .*missing\.crt \(ENOENT\)/,
      ],
      [
        { HCN_HTTP_TLS_CERT: server.key, HCN_HTTP_TLS_KEY: server.key },
        /HCN_HTTP_TLS_CERT: .* is not a PEM certificate/,
      ],
      [{ HCN_HTTP_TLS_CERT: server.cert }, /HCN_HTTP_TLS_CERT and HCN_HTTP_TLS_KEY go together/],
      [
        { HCN_HTTP_TLS_CERT: server.cert, HCN_HTTP_TLS_KEY: other.key },
        /is not the private key of HCN_HTTP_TLS_CERT/,
      ],
      [
        { HCN_HTTP_TLS_CERT: server.cert, HCN_HTTP_TLS_KEY: server.key, HCN_HTTP_TLS_CLIENT_AUTH: 'require' },
        /HCN_HTTP_TLS_CLIENT_AUTH=require needs the CA/,
      ],
      [
        { HCN_HTTP_TLS_CERT: server.cert, HCN_HTTP_TLS_KEY: server.key, HCN_HTTP_TLS_CLIENT_AUTH: 'always' },
        /HCN_HTTP_TLS_CLIENT_AUTH: none, request/,
      ],
      [{ HCN_HTTP_TLS_CA: ca.cert }, /client certificates need the HTTPS listener/],
      [{ HCN_FEDERATION_TLS_CA: join(dir, 'nope.pem') }, /HCN_FEDERATION_TLS_CA: cannot read/],
    ];
    for (const [env, message] of cases) expect(() => loadHubConfig({ ...BASE_ENV, ...env })).toThrow(message);
    // the hub's process stops at start-up (exit 2) with that message
    const hub = new AppProcess('hub-bad-tls', 'apps/hub/src/main.ts', {
      ...BASE_ENV,
      HCN_HTTP_TLS_CERT: join(dir, 'missing.crt'),
      HCN_HTTP_TLS_KEY: server.key,
    }).start();
    expect(await hub.exited()).toBe(2);
    expect(hub.output).toMatch(/HCN_HTTP_TLS_CERT: cannot read .*missing\.crt/);
  }, 60_000);
});
