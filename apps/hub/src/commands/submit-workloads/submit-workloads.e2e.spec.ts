import { nodeStream, quotaStream, workloadStream } from '@hcn/contracts';
import { describeWithPostgres } from '@hcn/testing';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';

const TEAM_A = 'team-a-token-0123456789';
const tokens = [{ name: 'team-a', token: TEAM_A, role: 'operator', namespaces: ['team-a'] }];
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const CORE = { cpuMillis: 1000, memoryBytes: 2 ** 20 };
const inSiteA = { domains: { affinity: ['site-a'] } };
const item = (namespace: string, name: string, extra: Record<string, unknown> = {}) =>
  processSpec({ namespace, name, resources: CORE, constraints: inSiteA, ...extra });

describeWithPostgres('batch submission: POST /v1/workloads/batch (hub + projector, real PostgreSQL)', () => {
  let h: HubHarness;
  const nodes: string[] = [];
  beforeAll(async () => {
    h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
    for (const hostname of ['b-1', 'b-2', 'b-3'])
      nodes.push((await registerNode(h, { hostname, cpuCores: 4, memoryBytes: 2 ** 34 })).nodeId);
    await registerNode(h, { hostname: 'q-1', domainId: 'site-q', cpuCores: 1, memoryBytes: 2 ** 30 });
  });
  afterAll(async () => h?.close());

  const count = async () => (await h.store.approximateEventCount()) ?? 0;
  const batch = (workloads: unknown[], headers?: Record<string, string>) =>
    h.request('POST', '/v1/workloads/batch', { workloads }, headers);

  /** What each node has reserved, replayed from its stream (the log, not the hub's memory). */
  async function reservedCpuByNode(): Promise<number[]> {
    return Promise.all(
      nodes.map(async (nodeId) => {
        const held = new Map<string, number>();
        for (const e of await h.store.readStream(nodeStream(nodeId))) {
          if (e.type === 'CapacityReserved') held.set(e.data.allocationId, e.data.resources.cpuMillis);
          else if (e.type === 'CapacityReleased') held.delete(e.data.allocationId);
        }
        return [...held.values()].reduce((a, b) => a + b, 0);
      }),
    );
  }

  it('places a batch side by side without overcommitting: 12 cores over 3 nodes of 4, the 3 left over unschedulable', async () => {
    const response = await batch(
      Array.from({ length: 15 }, (_, i) => item('team-a', `fill-${i}`)),
      as(TEAM_A),
    );
    expect([response.status, response.body.created]).toEqual([201, 15]);
    const statuses = response.body.workloads.map((w: { status: string }) => w.status);
    expect(statuses.filter((s: string) => s === 'starting')).toHaveLength(12);
    expect(statuses.filter((s: string) => s === 'unschedulable')).toHaveLength(3);
    expect(await reservedCpuByNode()).toEqual([4000, 4000, 4000]);
    const first = await h.store.readStream(workloadStream(response.body.workloads[0].workloadId));
    expect(first.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
    // the quota of the whole batch was held in one append: 15 holdings at one revision range, one transaction
    const held = (await h.store.readStream(quotaStream('team-a'))).filter((e) => e.type === 'QuotaConsumed');
    expect(held).toHaveLength(15);
    expect(new Set(held.map((e) => e.metadata.correlationId)).size).toBe(1);
  });

  it('answers a repeated batch under the same idempotency keys with the same workloads, writing nothing', async () => {
    const workloads = ['k-1', 'k-2', 'k-3'].map((key) => ({ ...item('team-b', key), idempotencyKey: key }));
    const first = await batch(workloads);
    expect([first.status, first.body.created]).toEqual([201, 3]);
    const before = await count();
    const again = await batch(workloads);
    expect([again.status, again.body.created]).toEqual([200, 0]);
    expect(again.body.workloads.map((w: { workloadId: string }) => w.workloadId)).toEqual(
      first.body.workloads.map((w: { workloadId: string }) => w.workloadId),
    );
    expect(await count()).toBe(before);
    // one new key beside two repeated ones creates only the new one
    const mixed = await batch([
      ...workloads.slice(0, 2),
      { ...item('team-b', 'k-4'), idempotencyKey: 'k-4' },
    ]);
    expect([mixed.status, mixed.body.created]).toEqual([201, 1]);
    const changed = await batch([
      { ...item('team-b', 'k-1', { args: ['-c', 'true'] }), idempotencyKey: 'k-1' },
    ]);
    expect([changed.status, changed.body.code]).toEqual([409, 'WORKLOAD.IDEMPOTENCY_CONFLICT']);
  });

  it.each([
    ['an empty batch', [], 'workloads:WORKLOAD.BATCH.TOO_SMALL'],
    [
      'more than 500 workloads',
      Array.from({ length: 501 }, () => item('team-a', 'x')),
      'workloads:WORKLOAD.BATCH.TOO_BIG',
    ],
    [
      'one invalid spec among valid ones',
      [item('team-a', 'ok'), item('team-a', 'bad', { command: undefined })],
      'workloads.1.command:WORKLOAD.BATCH.INVALID_TYPE',
    ],
  ])('refuses %s with 400 and a dotted code, writing nothing', async (_name, workloads, issue) => {
    const before = await count();
    const response = await batch(workloads);
    expect(response.status).toBe(400);
    const issues = response.body.details.issues.map(
      (i: { path: string; code: string }) => `${i.path}:${i.code}`,
    );
    expect(issues).toContain(issue);
    expect(await count()).toBe(before);
  });

  it('refuses a body over the 4 MB limit with 413 REQUEST.TOO_LARGE, writing nothing', async () => {
    const before = await count();
    const big = Array.from({ length: 500 }, (_, i) =>
      item('team-a', `big-${i}`, { env: { PAD: 'x'.repeat(9000) } }),
    );
    const response = await batch(big);
    expect([response.status, response.body.code]).toEqual([413, 'REQUEST.TOO_LARGE']);
    expect(await count()).toBe(before);
  });

  it.each([
    [
      'workloads of two namespaces',
      [item('team-a', 'a'), item('team-c', 'c')],
      undefined,
      400,
      'WORKLOAD.BATCH_NAMESPACES',
    ],
    [
      'an idempotency key twice',
      [
        { ...item('team-a', 'a'), idempotencyKey: 'same' },
        { ...item('team-a', 'b'), idempotencyKey: 'same' },
      ],
      undefined,
      400,
      'WORKLOAD.BATCH_DUPLICATE_KEY',
    ],
    ['a foreign namespace', [item('team-c', 'c')], as(TEAM_A), 403, 'AUTH.NAMESPACE_FORBIDDEN'],
    [
      'a type that cannot run yet',
      [item('team-a', 'a'), item('team-a', 'm', { type: 'batch' })],
      undefined,
      422,
      'WORKLOAD.TYPE_UNSUPPORTED',
    ],
  ])('refuses %s as a whole, writing nothing', async (_name, workloads, headers, status, code) => {
    const before = await count();
    const response = await batch(workloads, headers);
    expect([response.status, response.body.code]).toEqual([status, code]);
    expect(await count()).toBe(before);
  });

  it('admits a batch only as a whole: over quota is 422 with nothing held or placed (one AdmissionDenied), within quota all are placed', async () => {
    expect((await h.request('PUT', '/v1/quotas/team-q', { limits: { workloads: 4 } })).status).toBe(200);
    const small = (name: string) =>
      item('team-q', name, {
        resources: { cpuMillis: 10, memoryBytes: 1 },
        constraints: { domains: { affinity: ['site-q'] } }, // site-a is full
      });
    const before = await count();
    const over = await batch(['a', 'b', 'c', 'd', 'e'].map(small));
    expect([over.status, over.body.code]).toEqual([422, 'QUOTA.EXCEEDED']);
    expect(over.body.detail).toContain('workloads: 5 > limit 4');
    expect(await count()).toBe(before + 1);
    const denied = await h.store.readStream('admission-team-q');
    expect(denied.map((e) => [e.type, e.type === 'AdmissionDenied' && e.data.workloadName])).toEqual([
      ['AdmissionDenied', 'e'],
    ]);
    expect((await h.store.readStream(quotaStream('team-q'))).map((e) => e.type)).toEqual(['QuotaSet']);
    const within = await batch(['a', 'b', 'c', 'd'].map(small));
    expect([within.status, within.body.created]).toEqual([201, 4]);
    expect(within.body.workloads.map((w: { status: string }) => w.status)).toEqual(Array(4).fill('starting'));
    const metrics = (await h.request('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/hcn_workload_batch_seconds_count\{outcome="QUOTA.EXCEEDED"\} 1/);
    expect(metrics).toMatch(/hcn_workload_batch_seconds_count\{outcome="created"\} [1-9]/);
  });
});
