import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

const TEAM_A = 'listings-team-a-token-0123456789';
const tokens = [{ name: 'team-a', token: TEAM_A, role: 'viewer', namespaces: ['team-a'] }];
const asTeamA = { authorization: `Bearer ${TEAM_A}` };

describeWithPostgres('listings: allocations, domains, quotas, sorting and OpenAPI (hub + projector)', () => {
  let h: HubHarness;
  let aId: string;
  let bId: string;

  /** GET with the admin token; the page's items and total. */
  const getWithTotal = async (path: string): Promise<{ body: any[]; total: number; next: string | null }> => {
    const response = await h.request('GET', path);
    expect([path, response.status]).toEqual([path, 200]);
    return { body: response.body.items, total: response.body.total, next: response.body.nextCursor };
  };

  beforeAll(async () => {
    h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
    await registerNode(h, { domainId: 'lst-small', hostname: 'small', cpuCores: 2 });
    await registerNode(h, { domainId: 'lst-big', hostname: 'big', cpuCores: 16 });
    expect((await h.request('PUT', '/v1/quotas/team-a', { limits: { cpuMillis: 8000 } })).status).toBe(200);
    expect((await h.request('PUT', '/v1/quotas/team-b', { limits: { cpuMillis: 1000 } })).status).toBe(200);
    const submit = async (namespace: string, cpuMillis: number) => {
      const r = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace, name: `job-${namespace}`, resources: { cpuMillis, memoryBytes: 2 ** 26 } }),
      );
      expect(r.status).toBe(201);
      return r.body.workloadId as string;
    };
    aId = await submit('team-a', 4000);
    bId = await submit('team-b', 500);
  });
  afterAll(async () => h?.close());

  it('lists allocations with filters and keeps to the token namespaces', async () => {
    await eventuallyExpect(async () => {
      expect((await h.request('GET', '/v1/allocations')).body.total).toBe(2);
    });
    const mine = await h.request('GET', `/v1/allocations?workloadId=${aId}&sort=placedAt&order=asc`);
    expect(mine.body.items).toEqual([expect.objectContaining({ workloadId: aId, namespace: 'team-a' })]);
    const scoped = await h.request('GET', '/v1/allocations', undefined, asTeamA);
    expect(scoped.body.items.map((a: any) => a.workloadId)).toEqual([aId]);
    const other = await h.request('GET', `/v1/allocations?workloadId=${bId}`, undefined, asTeamA);
    expect([other.status, other.body.total]).toEqual([200, 0]);
    const named = await h.request('GET', '/v1/allocations?namespace=team-b', undefined, asTeamA);
    expect(named.body.items).toEqual([]);
    const first = await h.request('GET', '/v1/allocations?limit=1&sort=startedAt');
    const page = await h.request(
      'GET',
      `/v1/allocations?limit=1&sort=startedAt&cursor=${first.body.nextCursor}`,
    );
    expect([page.body.items.length, page.body.total, page.body.nextCursor]).toEqual([1, 2, null]);
    expect(page.body.items[0].allocationId).not.toBe(first.body.items[0].allocationId);
  });

  it('shows total, allocated and allocatable capacity per resource for each domain, sorted and paged', async () => {
    await eventuallyExpect(async () => {
      const domains = (await h.request('GET', '/v1/domains')).body.items as any[];
      const allocated = domains.reduce((sum, d) => sum + d.capacity.cpuMillis.allocated, 0);
      expect(allocated).toBe(4500);
    });
    const { body, total } = await getWithTotal('/v1/domains?sort=cpuAllocatable&order=desc');
    expect(total).toBe(2);
    expect(body.map((d: any) => d.domainId)).toEqual(['lst-big', 'lst-small']);
    for (const d of body) {
      const { cpuMillis, memoryBytes, accelerators } = d.capacity;
      expect(cpuMillis.total).toBe(d.capacity.cpuCores.total * 1000);
      expect(cpuMillis.allocatable).toBe(cpuMillis.total - cpuMillis.allocated);
      expect(memoryBytes.allocatable).toBe(memoryBytes.total - memoryBytes.allocated);
      expect(memoryBytes.available).toEqual(expect.any(Number));
      expect(accelerators).toEqual({ total: 0, allocated: 0, allocatable: 0 });
      expect(d.reserved.cpuMillis).toBe(cpuMillis.allocated);
    }
    const big = body[0];
    expect(big.capacity.cpuMillis.allocated).toBeGreaterThanOrEqual(4000);
    const first = await getWithTotal('/v1/domains?limit=1');
    const paged = await getWithTotal(`/v1/domains?limit=1&cursor=${first.next}`);
    expect([paged.body.map((d: any) => d.domainId), paged.total, paged.next]).toEqual([
      ['lst-small'],
      2,
      null,
    ]);
    const tagged = await h.request('GET', '/v1/domains?tag=arch=x64&defined=false');
    expect(tagged.body.items).toHaveLength(2);
  });

  it('filters, sorts and pages quotas within the token scope', async () => {
    await eventuallyExpect(async () => {
      const { body } = await getWithTotal('/v1/quotas?sort=cpuUsage&order=desc');
      expect(body.map((q: any) => q.namespace)).toEqual(['team-a', 'team-b']); // both half used: by name
    });
    const { body, total } = await getWithTotal('/v1/quotas?prefix=team-&limit=1&sort=namespace&order=desc');
    expect([body.map((q: any) => q.namespace), total]).toEqual([['team-b'], 2]);
    const scoped = await h.request('GET', '/v1/quotas?namespace=team-b', undefined, asTeamA);
    expect(scoped.body.items).toEqual([]);
  });

  it('sorts workloads and refuses bad listing parameters with dotted codes', async () => {
    const byName = await h.request('GET', '/v1/workloads?sort=name&order=asc');
    expect(byName.body.items.map((w: any) => w.name)).toEqual(['job-team-a', 'job-team-b']);
    const cases: Array<[string, string]> = [
      ['/v1/allocations?sort=hops', 'ALLOCATIONS.QUERY'],
      ['/v1/allocations?status=sleeping', 'ALLOCATIONS.QUERY'],
      ['/v1/domains?order=sideways', 'DOMAINS.QUERY'],
      ['/v1/domains?limit=0', 'DOMAINS.QUERY'],
      ['/v1/quotas?offset=1', 'QUOTAS.QUERY'],
      ['/v1/quotas?limit=1001', 'QUOTAS.QUERY'],
      ['/v1/quotas?cursor=bm90LWEtY3Vyc29y', 'REQUEST.BAD_CURSOR'],
      ['/v1/workloads?cursor=%25%25', 'REQUEST.BAD_CURSOR'],
      ['/v1/quotas?sort=bogus', 'QUOTAS.QUERY'],
      ['/v1/workloads?sort=bogus', 'WORKLOADS.QUERY'],
      ['/v1/nodes?sort=bogus', 'NODES.QUERY'],
      ['/v1/devices?limit=5000', 'DEVICES.QUERY'],
    ];
    for (const [path, code] of cases) {
      const r = await h.request('GET', path);
      expect([path, r.status, r.body.code]).toEqual([path, 400, code]);
    }
  });

  it('documents the query parameters of every listing in OpenAPI', async () => {
    const doc = (await h.request('GET', '/docs/openapi.json')).body;
    const expected: Record<string, string[]> = {
      '/v1/nodes': ['domain', 'status', 'runtime', 'label'],
      '/v1/workloads': ['namespace', 'status', 'name', 'cursor'],
      '/v1/domains': ['parentId', 'region', 'tag'],
      '/v1/quotas': ['namespace', 'prefix'],
      '/v1/allocations': ['workloadId', 'nodeId', 'status', 'namespace'],
      '/v1/devices': ['vendor'],
      '/v1/delegations': ['type'],
    };
    for (const [path, filters] of Object.entries(expected)) {
      const names = doc.paths[path].get.parameters.map((p: any) => p.name);
      expect([path, names]).toEqual([
        path,
        expect.arrayContaining([...filters, 'sort', 'order', 'limit', 'cursor']),
      ]);
    }
  });
});
