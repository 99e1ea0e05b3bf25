import { MAX_ENV_ENTRIES, MAX_WORKLOAD_SPEC_BYTES } from '@hcn/contracts';
import { describeWithPostgres } from '@hcn/testing';
import { HubHarness, TEST_ADMIN_TOKEN, processSpec, startHubHarness } from './testing/hub-harness';

const MAX_INSTANCES = 50;

/**
 * Request caps (instances per request, spec size, env entries), the default quota, security headers and the ops
 * listener, against a hub on real PostgreSQL configured with all of them.
 */
describeWithPostgres('hub hardening: caps, default quota, headers, ops listener (real PostgreSQL)', () => {
  let h: HubHarness;
  beforeAll(async () => {
    h = await startHubHarness({
      HCN_MAX_INSTANCES_PER_REQUEST: String(MAX_INSTANCES),
      HCN_DEFAULT_QUOTA: JSON.stringify({ workloads: 1, cpuMillis: 1000 }),
      HCN_OPS_HTTP_PORT: '0',
    });
    expect(h.hub.opsUrl).not.toBe(h.hub.url);
  });
  afterAll(async () => h?.close());

  const eventIds = async () => new Set((await h.store.readAll()).map((e) => e.eventId));
  /** Runs a request and checks that it wrote no event. */
  const refusedWritingNothing = async (method: string, path: string, body: unknown) => {
    const before = await eventIds();
    const response = await h.request(method, path, body);
    const added = [...(await eventIds())].filter((id) => !before.has(id));
    expect(added).toEqual([]);
    return response;
  };
  const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  /** A spec whose env makes it about `bytes` long as JSON. */
  const bulky = (bytes: number, over: Record<string, unknown> = {}) => {
    const env: Record<string, string> = {};
    for (let i = 0; i * 30_000 < bytes; i++) env[`BULK_${i}`] = 'x'.repeat(30_000);
    return processSpec({ namespace: 'caps', env, ...over });
  };

  describe('request caps', () => {
    beforeAll(async () => {
      const quota = await h.request('PUT', '/v1/quotas/caps', { limits: {} }); // unlimited of its own
      expect(quota.status).toBe(200);
    });

    it('refuses a submission over HCN_MAX_INSTANCES_PER_REQUEST with 422 and writes nothing', async () => {
      const spec = processSpec({ namespace: 'caps', replicas: MAX_INSTANCES + 1 });
      const response = await refusedWritingNothing('POST', '/v1/workloads', spec);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        code: 'WORKLOAD.TOO_MANY_INSTANCES',
        details: { instances: MAX_INSTANCES + 1, limit: MAX_INSTANCES },
      });
    });

    it('sums the replicas of a batch: 3 × 20 over 50 is refused as a whole', async () => {
      const workloads = [0, 1, 2].map((i) => processSpec({ name: `b${i}`, namespace: 'caps', replicas: 20 }));
      const response = await refusedWritingNothing('POST', '/v1/workloads/batch', { workloads });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        code: 'WORKLOAD.TOO_MANY_INSTANCES',
        details: { instances: 60 },
      });
    });

    it('refuses a spec over 256 KiB as JSON with 413 WORKLOAD.SPEC_TOO_LARGE, alone or in a batch', async () => {
      const single = await refusedWritingNothing('POST', '/v1/workloads', bulky(MAX_WORKLOAD_SPEC_BYTES));
      expect(single.status).toBe(413);
      expect(single.body.code).toBe('WORKLOAD.SPEC_TOO_LARGE');
      expect(single.body.details.bytes).toBeGreaterThan(MAX_WORKLOAD_SPEC_BYTES);
      const workloads = [processSpec({ namespace: 'caps' }), bulky(300 * 1024, { name: 'big' })];
      const batch = await refusedWritingNothing('POST', '/v1/workloads/batch', { workloads });
      expect(batch.status).toBe(413);
      expect(batch.body).toMatchObject({
        code: 'WORKLOAD.SPEC_TOO_LARGE',
        details: { index: 1, name: 'big', limit: MAX_WORKLOAD_SPEC_BYTES },
      });
    });

    it(`refuses more than ${MAX_ENV_ENTRIES} env entries with 400 on the env field`, async () => {
      const env = Object.fromEntries(Array.from({ length: MAX_ENV_ENTRIES + 1 }, (_, i) => [`E${i}`, 'v']));
      const response = await refusedWritingNothing('POST', '/v1/workloads', processSpec({ env }));
      expect(response.status).toBe(400);
      expect(response.body.details.issues).toEqual([
        expect.objectContaining({ path: 'env', code: 'WORKLOAD.SPEC.CUSTOM' }),
      ]);
    });

    it('admits a spec just under the caps, and refuses an update over them', async () => {
      const under = bulky(200 * 1024, { replicas: MAX_INSTANCES });
      const created = await h.request('POST', '/v1/workloads', under);
      expect(created.status).toBe(201);
      const path = `/v1/workloads/${created.body.workloadId}`;
      const larger = await refusedWritingNothing('PUT', path, { ...under, replicas: MAX_INSTANCES + 1 });
      expect(larger.status).toBe(422);
      expect(larger.body.code).toBe('WORKLOAD.TOO_MANY_INSTANCES');
      expect((await h.request('DELETE', path)).status).toBe(202);
    });
  });

  describe('default quota (HCN_DEFAULT_QUOTA)', () => {
    it('limits a namespace without a quota of its own', async () => {
      const first = await h.request('POST', '/v1/workloads', processSpec({ namespace: 'plain' }));
      expect(first.status).toBe(201);
      const second = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ name: 'two', namespace: 'plain' }),
      );
      expect(second.status).toBe(422);
      expect(second.body.code).toBe('QUOTA.EXCEEDED');
      expect(second.body.detail).toContain('(the default quota)');
      expect((await h.store.readStream('quota-plain')).map((e) => e.type)).toEqual(['QuotaConsumed']);
      const shown = await h.request('GET', '/v1/quotas/plain');
      expect(shown.body).toMatchObject({
        limits: { workloads: 1, cpuMillis: 1000 },
        limitsSource: 'default',
        used: { workloads: 1 },
      });
    });

    it('refuses a batch over the default as a whole', async () => {
      const workloads = ['a', 'b'].map((name) => processSpec({ name, namespace: 'plain-batch' }));
      const response = await h.request('POST', '/v1/workloads/batch', { workloads });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('QUOTA.EXCEEDED');
      expect(await h.store.readStream('quota-plain-batch')).toEqual([]);
    });

    it('leaves a namespace with its own quota to that quota', async () => {
      const set = await h.request('PUT', '/v1/quotas/owned', { limits: { workloads: 3 } });
      expect(set.status).toBe(200);
      for (const name of ['one', 'two', 'three']) {
        const response = await h.request('POST', '/v1/workloads', processSpec({ name, namespace: 'owned' }));
        expect(response.status).toBe(201);
      }
      const shown = await h.request('GET', '/v1/quotas/owned');
      expect(shown.body).toMatchObject({ limits: { workloads: 3 }, limitsSource: 'namespace' });
    });
  });

  describe('security headers', () => {
    it.each([
      ['an API answer', '/v1/nodes', 200],
      ['an error', '/v1/no-such-route', 404],
      ['a health check', '/healthz', 200],
    ])('sets helmet headers and no X-Powered-By on %s', async (_what, path, status) => {
      const response = await get(`${h.hub.url}${path}`);
      expect(response.status).toBe(status);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self';");
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-powered-by')).toBeNull();
    });
  });

  describe('ops listener (HCN_OPS_HTTP_PORT)', () => {
    it('answers /metrics and /docs there, and 404 for them on the main listener', async () => {
      const metrics = await get(`${h.hub.opsUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('hcn_workload_batch_seconds');
      const openApi = await get(`${h.hub.opsUrl}/docs/openapi.json`);
      expect(openApi.status).toBe(200);
      expect(Object.keys(((await openApi.json()) as { paths: object }).paths)).toEqual(
        expect.arrayContaining(['/v1/workloads', '/v1/quotas/{namespace}']),
      );
      const ui = await get(`${h.hub.opsUrl}/docs`);
      expect(ui.status).toBe(200);
      expect(ui.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
      expect(ui.headers.get('x-powered-by')).toBeNull();
      for (const path of ['/metrics', '/docs', '/docs/openapi.json']) {
        expect((await h.request('GET', path)).status).toBe(404);
      }
      expect((await h.request('GET', '/healthz')).status).toBe(200);
      expect((await h.request('GET', '/readyz')).status).toBe(200);
    });

    it('serves nothing of the API', async () => {
      expect((await get(`${h.hub.opsUrl}/v1/nodes`)).status).toBe(404);
      expect((await get(`${h.hub.opsUrl}/healthz`)).status).toBe(404);
    });
  });
});
