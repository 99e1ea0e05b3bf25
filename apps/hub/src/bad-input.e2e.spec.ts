import { describeWithPostgres } from '@hcn/testing';
import {
  HubHarness,
  processSpec,
  registerNode,
  registrationBody,
  startHubHarness,
} from './testing/hub-harness';

const NUL = '\u0000';

describeWithPostgres('bad input at the edge (hub, real PostgreSQL)', () => {
  let h: HubHarness;
  let nodeId: string;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
    nodeId = (await registerNode(h, { hostname: 'nul-1' })).nodeId;
    const domain = await h.request('POST', '/v1/domains', { domainId: 'nul-site' });
    expect(domain.status).toBe(201);
  });
  afterAll(async () => h?.close());

  const eventIds = async () => new Set((await h.store.readAll()).map((e) => e.eventId));
  const template = (over: Record<string, unknown> = {}) => ({
    templateId: 'nul-template',
    namespace: 'default',
    parameters: [],
    spec: processSpec(),
    ...over,
  });

  // A NUL character used to reach PostgreSQL, which refuses it: 503 EVENTSTORE.UNAVAILABLE and a quota hold left.
  it.each([
    ['workload args', 'POST', '/v1/workloads', () => processSpec({ args: ['-c', `echo ${NUL}`] })],
    ['workload env', 'POST', '/v1/workloads', () => processSpec({ env: { A: `x${NUL}` } })],
    ['workload name', 'POST', '/v1/workloads', () => processSpec({ name: `job${NUL}` })],
    [
      'a batch',
      'POST',
      '/v1/workloads/batch',
      () => ({ workloads: [processSpec(), processSpec({ env: { [`K${NUL}`]: 'v' } })] }),
    ],
    ['a template spec', 'POST', '/v1/templates', () => template({ spec: processSpec({ args: [`${NUL}`] }) })],
    [
      'node registration labels',
      'POST',
      '/v1/agents/register',
      () => registrationBody({ hostname: 'nul-2', labels: { rack: `r${NUL}` } }),
    ],
    ['domain labels', 'PUT', '/v1/domains/nul-site', () => ({ labels: { zone: `z${NUL}` } })],
    ['node labels', 'PUT', 'NODE_LABELS', () => ({ labels: { gpu: `a${NUL}` } })],
  ])('refuses a NUL character in %s with 400 and writes nothing', async (_what, method, path, body) => {
    const before = await eventIds();
    const url = path === 'NODE_LABELS' ? `/v1/nodes/${nodeId}/labels` : path;
    const response = await h.request(method, url, body());
    expect(response.status).toBe(400);
    const codes = response.body.details.issues.map((i: { code: string }) => i.code);
    expect(codes).toEqual([expect.stringMatching(/\.NUL_CHARACTER$/)]);
    const added = [...(await eventIds())].filter((id) => !before.has(id));
    const written = (await h.store.readAll()).filter((e) => added.includes(e.eventId));
    expect(written.filter((e) => !e.streamId.startsWith('heartbeat-'))).toEqual([]);
    expect((await h.request('GET', '/readyz')).status).toBe(200);
  });

  it('refuses a PUT without a body with 400 instead of replacing the definition with defaults', async () => {
    const labelled = await h.request('PUT', '/v1/domains/nul-site', { labels: { zone: 'a' } });
    expect(labelled.status).toBe(200);
    const response = await h.request('PUT', '/v1/domains/nul-site');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('REQUEST.BODY_REQUIRED');
    expect((await h.request('GET', '/v1/domains/nul-site')).body.labels).toEqual({ zone: 'a' });
  });

  it.each([
    ['POST', '/v1/domains', { domainId: 'odd-site', policy: 'fastest' }],
    ['PUT', '/v1/domains/nul-site', { policy: 'fastest' }],
  ])(
    'refuses a policy no scorer has (%s %s) with 400 DOMAIN.UNKNOWN_POLICY and writes nothing',
    async (method, path, body) => {
      const before = await eventIds();
      const response = await h.request(method, path, body);
      expect([response.status, response.body.code]).toEqual([400, 'DOMAIN.UNKNOWN_POLICY']);
      expect(response.body.details.known).toContain('least-loaded');
      expect(await eventIds()).toEqual(before);
    },
  );
});
