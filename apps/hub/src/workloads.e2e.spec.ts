import { quotaStream, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { HubHarness, processSpec, registerNode, startHubHarness } from './testing/hub-harness';

const TEAM_A = 'team-a-token-0123456789';
const TEAM_B = 'team-b-token-0123456789';
const VIEWER_A = 'viewer-a-token-0123456789';
const tokens = [
  { name: 'team-a', token: TEAM_A, role: 'operator', namespaces: ['team-a'] },
  { name: 'team-b', token: TEAM_B, role: 'operator', namespaces: ['team-b'] },
  { name: 'viewer-a', token: VIEWER_A, role: 'viewer', namespaces: ['team-a'] },
];
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describeWithPostgres('workloads API (hub + projector, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
    await registerNode(h, { hostname: 'big-1', cpuCores: 16, memoryBytes: 64 * 2 ** 30 });
  });
  afterAll(async () => h?.close());

  const count = async () => (await h.store.approximateEventCount()) ?? 0;
  /** Events of the domain streams only (the saga may write to workload streams meanwhile). */
  const domainEvents = async () =>
    (await h.store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['domain-'] } })).length;

  it('places a submission on a node and records the chain on the workload stream', async () => {
    const response = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ namespace: 'team-a' }),
      as(TEAM_A),
    );
    expect([response.status, response.body.code]).toEqual([201, undefined]);
    const { workloadId } = response.body;
    const view = await h.request('GET', `/v1/workloads/${workloadId}`, undefined, as(TEAM_A));
    expect(view.body.instances[0].status).toBe('placed');
    const types = (await h.store.readStream(workloadStream(workloadId))).map((e) => e.type);
    expect(types).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
    expect(view.body.delegations[0].steps.map((s: any) => s.type)).toEqual([
      'WorkloadDelegated',
      'WorkloadDelegated',
      'AllocationPlaced',
    ]);
  });

  it('answers a repeated idempotency key with the same workload and writes nothing; a different spec is a conflict', async () => {
    const spec = processSpec({ namespace: 'team-a', name: 'idem' });
    const first = await h.request('POST', '/v1/workloads', spec, { ...as(TEAM_A), 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    const before = await count();
    const again = await h.request('POST', '/v1/workloads', spec, { ...as(TEAM_A), 'idempotency-key': 'k-1' });
    expect(again.status).toBe(200);
    expect(again.body.workloadId).toBe(first.body.workloadId);
    const changed = await h.request(
      'POST',
      '/v1/workloads',
      { ...spec, args: ['-c', 'true'], idempotencyKey: 'k-1' },
      as(TEAM_A),
    );
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('WORKLOAD.IDEMPOTENCY_CONFLICT');
    expect(await count()).toBe(before);
  });

  it.each([
    ['a missing command', { command: undefined }, 'command:WORKLOAD.SPEC.INVALID_TYPE'],
    [
      'negative cpu',
      { resources: { cpuMillis: -1, memoryBytes: 1 } },
      'resources.cpuMillis:WORKLOAD.SPEC.TOO_SMALL',
    ],
    [
      'a bad label operator',
      { constraints: { labels: [{ key: 'gpu', op: '~', value: 'x' }] } },
      'constraints.labels.0.op:WORKLOAD.SPEC.INVALID_VALUE',
    ],
    [
      'a broken regex',
      { constraints: { labels: [{ key: 'gpu', op: 'regex', value: '(' }] } },
      'constraints.labels.0.value:WORKLOAD.SPEC.CUSTOM',
    ],
    [
      'a lookahead regex (not RE2 syntax)',
      { constraints: { labels: [{ key: 'gpu', op: 'regex', value: '(?=n)nvidia' }] } },
      'constraints.labels.0.value:WORKLOAD.SPEC.CUSTOM',
    ],
    ['an unknown field', { colour: 'blue' }, '(root):WORKLOAD.SPEC.UNRECOGNIZED_KEYS'],
    [
      'a bad restart policy',
      { restartPolicy: { policy: 'sometimes' } },
      'restartPolicy.policy:WORKLOAD.SPEC.INVALID_VALUE',
    ],
  ])('refuses %s with 400 and a dotted code, writing nothing', async (_name, change, issue) => {
    const before = await count();
    const response = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ namespace: 'team-a', ...change }),
      as(TEAM_A),
    );
    expect(response.status).toBe(400);
    const issues = response.body.details.issues.map(
      (i: { path: string; code: string }) => `${i.path}:${i.code}`,
    );
    expect(issues).toContain(issue);
    expect(await count()).toBe(before);
  });

  it('places accelerator requests only on nodes with enough devices, and refuses a request no node can hold', async () => {
    const gpu = (index: number) => ({
      index,
      vendor: 'nvidia',
      model: 'A100-SXM4-80GB',
      memoryBytes: 80 * 2 ** 30,
      numaNode: 0,
      health: 100,
      interconnect: [],
    });
    const node = await registerNode(h, {
      hostname: 'gpu-box',
      domainId: 'gpu-site',
      accelerators: 4,
      devices: [0, 1, 2, 3].map(gpu),
    });
    const fits = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ name: 'train', resources: { cpuMillis: 100, memoryBytes: 1, accelerators: 2 } }),
    );
    expect(fits.status).toBe(201);
    const placed = (await h.request('GET', `/v1/workloads/${fits.body.workloadId}`)).body.allocations[0];
    expect(placed).toMatchObject({ nodeId: node.nodeId, resources: { accelerators: 2 } });
    const tooBig = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ name: 'huge', resources: { cpuMillis: 100, memoryBytes: 1, accelerators: 3 } }),
    );
    expect(tooBig.body.status).toBe('unschedulable');
    const verdict = (await h.store.readStream(workloadStream(tooBig.body.workloadId))).find(
      (e) => e.type === 'WorkloadUnschedulable',
    );
    expect(Object.keys(verdict!.data.reasons).join()).toMatch(/ACCELERATORS/);
    // delete it, so later specs' counts of written events are not disturbed by its retries
    expect((await h.request('DELETE', `/v1/workloads/${tooBig.body.workloadId}`)).status).toBe(202);
    await eventuallyExpect(async () => {
      const types = (await h.store.readStream(quotaStream('default'))).map((e) => e.type);
      expect(types.filter((t) => t === 'QuotaReleased').length).toBeGreaterThan(0);
    });
  });

  it('refuses workload types that cannot run yet with 422', async () => {
    const response = await h.request('POST', '/v1/workloads', processSpec({ type: 'batch' }));
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('WORKLOAD.TYPE_UNSUPPORTED');
  });

  describe('access control', () => {
    it('a namespace token cannot submit into, see, stop or change another namespace', async () => {
      const before = await count();
      const denied = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-b' }),
        as(TEAM_A),
      );
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('AUTH.NAMESPACE_FORBIDDEN');
      expect(await count()).toBe(before);
      const theirs = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-b', name: 'b' }),
        as(TEAM_B),
      );
      const id = theirs.body.workloadId;
      for (const [method, path] of [
        ['GET', `/v1/workloads/${id}`],
        ['POST', `/v1/workloads/${id}/stop`],
        ['DELETE', `/v1/workloads/${id}`],
        ['GET', `/v1/workloads/${id}/logs`],
      ]) {
        const response = await h.request(method, path, undefined, as(TEAM_A));
        expect([method, path, response.status, response.body.code]).toEqual([
          method,
          path,
          404,
          'WORKLOAD.NOT_FOUND',
        ]);
      }
      await eventuallyExpect(async () => {
        const list = await h.request('GET', '/v1/workloads?limit=100', undefined, as(TEAM_A));
        expect(list.status).toBe(200);
        expect(list.body.items.length).toBeGreaterThan(0);
        expect(list.body.items.every((w: any) => w.namespace === 'team-a')).toBe(true);
      });
    });

    it('a viewer can read but not submit; agents and strangers get 401', async () => {
      expect((await h.request('GET', '/v1/workloads', undefined, as(VIEWER_A))).status).toBe(200);
      const submit = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-a' }),
        as(VIEWER_A),
      );
      expect([submit.status, submit.body.code]).toEqual([403, 'AUTH.FORBIDDEN']);
      const agent = await registerNode(h, { hostname: 'agent-x' });
      const asAgent = await h.request('GET', '/v1/workloads', undefined, as(agent.credential));
      expect([asAgent.status, asAgent.body.code]).toEqual([401, 'AUTH.AGENT_CREDENTIAL_NOT_ALLOWED']);
      const none = await h.request('GET', '/v1/nodes', undefined, { authorization: '' });
      expect([none.status, none.body.code]).toEqual([401, 'AUTH.TOKEN_REQUIRED']);
      const drain = await h.request('POST', `/v1/nodes/${agent.nodeId}/drain`, {}, as(TEAM_A));
      expect(drain.status).toBe(403);
    });
  });

  describe('quotas', () => {
    it('refuses a workload over quota with 422 QUOTA.EXCEEDED changing nothing (one AdmissionDenied audit fact), and admits it once quota is freed', async () => {
      const put = await h.request('PUT', '/v1/quotas/team-q', { limits: { cpuMillis: 1000 } });
      expect(put.status).toBe(200);
      const first = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-q', resources: { cpuMillis: 600, memoryBytes: 1 } }),
      );
      expect(first.status).toBe(201);
      const before = await count();
      const second = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-q', resources: { cpuMillis: 300, memoryBytes: 1 }, replicas: 2 }),
      );
      expect([second.status, second.body.code]).toEqual([422, 'QUOTA.EXCEEDED']);
      expect(second.body.detail).toContain('cpuMillis: 1200 > limit 1000');
      // Nothing changes; the refusal itself is recorded for compliance reports (one audit event).
      expect(await count()).toBe(before + 1);
      const denied = await h.store.readStream('admission-team-q');
      expect(denied.map((e) => [e.type, e.type === 'AdmissionDenied' && e.data.over])).toEqual([
        ['AdmissionDenied', ['cpuMillis: 1200 > limit 1000']],
      ]);
      const usage = await h.request('GET', '/v1/quotas/team-q');
      expect(usage.body.used).toMatchObject({ cpuMillis: 600, workloads: 1 });
      expect((await h.request('DELETE', `/v1/workloads/${first.body.workloadId}`)).status).toBe(202);
      await eventuallyExpect(async () => {
        const types = (await h.store.readStream(quotaStream('team-q'))).map((e) => e.type);
        expect(types).toEqual(['QuotaSet', 'QuotaConsumed', 'QuotaReleased']);
      });
      const third = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ namespace: 'team-q', resources: { cpuMillis: 300, memoryBytes: 1 }, replicas: 2 }),
      );
      expect(third.status).toBe(201);
    });

    it('only admins set quotas', async () => {
      const response = await h.request('PUT', '/v1/quotas/team-a', { limits: { cpuMillis: 1 } }, as(TEAM_A));
      expect(response.status).toBe(403);
    });
  });

  describe('templates', () => {
    it('instantiates a template with parameters; unknown parameters get 400 and write nothing', async () => {
      const defined = await h.request(
        'POST',
        '/v1/templates',
        {
          templateId: 'echo',
          namespace: 'team-a',
          parameters: [{ name: 'word' }, { name: 'times', default: '1' }],
          spec: {
            name: 'echo-${word}',
            command: 'sh',
            args: ['-c', 'echo ${word} ${times}'],
            resources: { cpuMillis: 100, memoryBytes: 1 },
          },
        },
        as(TEAM_A),
      );
      expect(defined.status).toBe(201);
      const made = await h.request(
        'POST',
        '/v1/templates/echo/instantiate',
        { parameters: { word: 'hi' } },
        as(TEAM_A),
      );
      expect(made.status).toBe(201);
      const view = await h.request('GET', `/v1/workloads/${made.body.workloadId}`, undefined, as(TEAM_A));
      expect(view.body.spec).toMatchObject({
        name: 'echo-hi',
        namespace: 'team-a',
        args: ['-c', 'echo hi 1'],
      });
      const before = await count();
      const bad = await h.request(
        'POST',
        '/v1/templates/echo/instantiate',
        { parameters: { word: 'x', colour: 'red' } },
        as(TEAM_A),
      );
      expect([bad.status, bad.body.code]).toEqual([400, 'TEMPLATE.UNKNOWN_PARAMETER']);
      const missing = await h.request(
        'POST',
        '/v1/templates/echo/instantiate',
        { parameters: {} },
        as(TEAM_A),
      );
      expect([missing.status, missing.body.code]).toEqual([400, 'TEMPLATE.MISSING_PARAMETER']);
      expect(await count()).toBe(before);
      expect((await h.request('GET', '/v1/templates/echo', undefined, as(TEAM_B))).status).toBe(404);
      const list = await h.request('GET', '/v1/templates', undefined, as(TEAM_A));
      expect(list.body.items.map((t: any) => t.templateId)).toContain('echo');
    });
  });

  describe('domains', () => {
    it('defines a tree and refuses unknown parents and cycles with 4xx, writing nothing', async () => {
      expect((await h.request('POST', '/v1/domains', { domainId: 'world' })).status).toBe(201);
      expect(
        (await h.request('POST', '/v1/domains', { domainId: 'eu', parentId: 'world', region: 'eu' })).status,
      ).toBe(201);
      const before = await domainEvents();
      const orphan = await h.request('POST', '/v1/domains', { domainId: 'lost', parentId: 'nowhere' });
      expect([orphan.status, orphan.body.code]).toEqual([422, 'DOMAIN.PARENT_NOT_FOUND']);
      const cycle = await h.request('PUT', '/v1/domains/world', { parentId: 'eu' });
      expect([cycle.status, cycle.body.code]).toEqual([422, 'DOMAIN.CYCLE']);
      const policy = await h.request('POST', '/v1/domains', { domainId: 'x', policy: 'fastest' });
      expect(policy.status).toBe(400);
      expect(await domainEvents()).toBe(before);
      const eu = await h.request('GET', '/v1/domains/eu');
      expect(eu.body).toMatchObject({
        domainId: 'eu',
        parentId: 'world',
        region: 'eu',
        policy: 'least-loaded',
      });
    });
  });
});
