import { describeWithPostgres, eventually } from '@hcn/testing';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';

const GiB = 2 ** 30;
const TEAM_A = 'audit-team-a-token-0123456789';
const VIEWER = 'audit-viewer-token-0123456789';
const tokens = [
  { name: 'team-a', token: TEAM_A, role: 'operator', namespaces: ['team-a'] },
  { name: 'viewer', token: VIEWER, role: 'viewer', namespaces: ['*'] },
];
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describeWithPostgres(
  'audit API: chain and decision replay, time travel, reports (hub, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let workloadId: string;
    let nodeB: string;
    let beforeNodes: string;
    let afterNodes: string;
    beforeAll(async () => {
      h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
      for (const [domainId, parentId, region, policy] of [
        ['global', null, null, 'least-loaded'],
        ['region-1', 'global', 'eu-west', 'locality'],
        ['site-a', 'region-1', null, 'least-loaded'],
        ['site-b', 'region-1', null, 'least-loaded'],
      ]) {
        const body = { domainId, parentId, region, policy };
        expect((await h.request('POST', '/v1/domains', body)).status).toBe(201);
      }
      beforeNodes = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      // site-a looks able to fit in aggregate (one node has the label, the other the capacity), so it is tried
      // first (preferred) and rejected, and region-1 falls back to site-b.
      await registerNode(h, { hostname: 'a1', domainId: 'site-a', cpuCores: 64, labels: { gpu: 'v100' } });
      await registerNode(h, { hostname: 'a2', domainId: 'site-a', cpuCores: 1, labels: { gpu: 'a100' } });
      nodeB = (
        await registerNode(h, { hostname: 'b1', domainId: 'site-b', cpuCores: 8, labels: { gpu: 'a100' } })
      ).nodeId;
      await new Promise((r) => setTimeout(r, 20));
      afterNodes = new Date().toISOString();
      const spec = processSpec({
        resources: { cpuMillis: 2000, memoryBytes: 4 * GiB },
        constraints: { labels: [{ key: 'gpu', op: '=', value: 'a100' }], preferDomains: ['site-a'] },
      });
      const submitted = await h.request('POST', '/v1/workloads', spec);
      expect(submitted.status).toBe(201);
      workloadId = submitted.body.workloadId;
      expect(
        (await h.request('POST', `/v1/workloads/${workloadId}/stop`, { reason: 'audit spec' })).status,
      ).toBe(202);
    });
    afterAll(async () => h?.close());

    it('replays the chain from the log as JSON and as a text tree', async () => {
      const json = await h.request('GET', `/v1/audit/workloads/${workloadId}/chain`);
      expect(json.status).toBe(200);
      const [decision] = json.body.decisions;
      expect(decision.trigger).toBe('submission');
      expect(decision.hops.map((hop: any) => [hop.seq, hop.fromScope, hop.to])).toEqual([
        [0, null, 'global'],
        [1, 'global', 'region-1'],
        [2, 'region-1', 'site-b'],
        [3, 'site-b', nodeB],
      ]);
      expect(decision.hops[0]).toMatchObject({
        actor: { kind: expect.any(String) },
        correlationId: workloadId,
      });
      expect(decision.rejections.map((r: any) => r.scope)).toEqual(['site-a']);
      expect(decision.outcome).toMatchObject({ kind: 'placed', nodeId: nodeB, domainId: 'site-b' });
      const kinds = json.body.timeline.map((e: any) => e.request?.kind ?? e.allocation?.kind ?? 'decision');
      expect(kinds).toEqual(expect.arrayContaining(['submitted', 'decision', 'stop-requested']));
      const text = await h.request('GET', `/v1/audit/workloads/${workloadId}/chain?format=text`);
      expect(text.body).toContain(`hop 3 (#3): site-b → node ${nodeB}`);
      expect(text.body).toContain('✗ node');
    });

    it('re-runs a recorded decision on the snapshot rebuilt from the log and gets the same result', async () => {
      const replay = await h.request('GET', `/v1/audit/workloads/${workloadId}/explain?hop=2`);
      expect(replay.status).toBe(200);
      expect(replay.body).toMatchObject({ matches: true, differences: [], decisionIndex: 0 });
      expect(replay.body.snapshot).toEqual({ domains: 4, nodes: 3 });
      // the projector's cluster checkpoints: once one lies before the decision, the replay starts from it, the same
      await eventually('a replay from a cluster checkpoint', async () => {
        const again = await h.request('GET', `/v1/audit/workloads/${workloadId}/explain?hop=2`);
        expect(again.body).toMatchObject({ matches: true, snapshot: { domains: 4, nodes: 3 } });
        expect(again.body.replayed).toEqual(replay.body.replayed);
        return typeof again.body.checkpoint === 'string';
      });
      const missing = await h.request('GET', `/v1/audit/workloads/${workloadId}/explain?hop=99`);
      expect([missing.status, missing.body.code]).toEqual([404, 'AUDIT.HOP_NOT_FOUND']);
    });

    it('answers 404 for unknown workloads, 400 for malformed ids, and hides other namespaces', async () => {
      const unknown = await h.request(
        'GET',
        '/v1/audit/workloads/6d2c1f0e-6d2c-4f0e-8d2c-1f0e6d2c1f0e/chain',
      );
      expect([unknown.status, unknown.body.code]).toEqual([404, 'AUDIT.WORKLOAD_NOT_FOUND']);
      expect((await h.request('GET', '/v1/audit/workloads/nope/chain')).status).toBe(400);
      const hidden = await h.request('GET', `/v1/audit/workloads/${workloadId}/chain`, undefined, as(TEAM_A));
      expect([hidden.status, hidden.body.code]).toEqual([404, 'AUDIT.WORKLOAD_NOT_FOUND']);
      const viewer = await h.request('GET', `/v1/audit/workloads/${workloadId}/chain`, undefined, as(VIEWER));
      expect(viewer.status).toBe(403);
    });

    it('travels in time: a node and a domain as of an instant', async () => {
      const then = await h.request('GET', `/v1/audit/nodes/${nodeB}?at=${encodeURIComponent(beforeNodes)}`);
      expect(then.body).toMatchObject({ status: 'unregistered', eventsApplied: 0 });
      const now = await h.request('GET', `/v1/audit/nodes/${nodeB}`);
      expect(now.body).toMatchObject({ status: 'online', domainId: 'site-b', capacity: { cpuMillis: 8000 } });
      const domain = await h.request(
        'GET',
        `/v1/audit/domains/region-1?at=${encodeURIComponent(beforeNodes)}`,
      );
      expect(domain.body.definition).toMatchObject({ domainId: 'region-1', region: 'eu-west' });
      const bad = await h.request('GET', `/v1/audit/nodes/${nodeB}?at=yesterday`);
      expect([bad.status, bad.body.code]).toEqual([400, 'AUDIT.INSTANT_INVALID']);
      const quota = await h.request('GET', '/v1/audit/quotas/team-z');
      expect([quota.status, quota.body.code]).toEqual([404, 'AUDIT.QUOTA_NOT_FOUND']);
    });

    it("travels in time: a domain's member nodes, their status, capacity and reservations", async () => {
      const domainAt = (id: string, at: string) =>
        h.request('GET', `/v1/audit/domains/${id}?at=${encodeURIComponent(at)}`);
      const empty = await domainAt('site-a', beforeNodes);
      expect(empty.body).toMatchObject({
        definition: { domainId: 'site-a' },
        members: [],
        nodes: { online: 0, offline: 0, draining: 0 },
        capacity: { cpuMillis: 0, accelerators: 0 },
      });
      const siteA = await domainAt('site-a', afterNodes);
      expect(siteA.status).toBe(200);
      expect(siteA.body.members.map((m: any) => [m.hostname, m.status, m.draining]).sort()).toEqual([
        ['a1', 'online', false],
        ['a2', 'online', false],
      ]);
      expect(siteA.body).toMatchObject({
        nodes: { online: 2, offline: 0, draining: 0 },
        capacity: { cpuMillis: 65_000 },
        reserved: { cpuMillis: 0 },
      });
      const at = new Date().toISOString();
      const siteB = await domainAt('site-b', at);
      const b1 = await h.request('GET', `/v1/audit/nodes/${nodeB}?at=${encodeURIComponent(at)}`);
      expect(siteB.body.members.map((m: any) => m.nodeId)).toEqual([nodeB]);
      expect(siteB.body.members[0]).toMatchObject({ status: 'online', reservations: b1.body.reservations });
      expect(siteB.body).toMatchObject({ capacity: { cpuMillis: 8000 }, reserved: b1.body.reserved });
      expect(siteB.body.reserved).toMatchObject({ cpuMillis: 2000, memoryBytes: 4 * GiB });
      const unknown = await domainAt('site-z', at);
      expect([unknown.status, unknown.body.code]).toEqual([404, 'AUDIT.DOMAIN_NOT_FOUND']);
    });

    it("travels in time: a quota's limits and usage between two changes and after", async () => {
      const tick = () => new Promise((r) => setTimeout(r, 20));
      expect((await h.request('PUT', '/v1/quotas/team-t', { limits: { cpuMillis: 4000 } })).status).toBe(200);
      await tick();
      const afterSet = new Date().toISOString();
      await tick();
      // Admitted (quota held) but placed nowhere: no node has the label, so the reports see no new placement.
      const spec = processSpec({
        namespace: 'team-t',
        resources: { cpuMillis: 1000, memoryBytes: 1 },
        constraints: { labels: [{ key: 'gpu', op: '=', value: 'h100' }] },
      });
      expect((await h.request('POST', '/v1/workloads', spec)).status).toBe(201);
      await tick();
      const afterHold = new Date().toISOString();
      await tick();
      expect((await h.request('PUT', '/v1/quotas/team-t', { limits: { cpuMillis: 500 } })).status).toBe(200);
      const quotaAt = (at: string) =>
        h.request('GET', `/v1/audit/quotas/team-t?at=${encodeURIComponent(at)}`);
      const first = await quotaAt(afterSet);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        limits: { cpuMillis: 4000 },
        used: { cpuMillis: 0 },
        overLimits: [],
      });
      expect(first.body.eventsApplied).toBe(1);
      const held = await quotaAt(afterHold);
      expect(held.body).toMatchObject({
        limits: { cpuMillis: 4000 },
        used: { cpuMillis: 1000, workloads: 1 },
        overLimits: [],
        eventsApplied: 2,
      });
      expect(Object.keys(held.body.held)).toHaveLength(1);
      const after = await h.request('GET', '/v1/audit/quotas/team-t');
      expect(after.body).toMatchObject({
        limits: { cpuMillis: 500 },
        used: { cpuMillis: 1000 },
        overLimits: ['cpuMillis: 1000 > limit 500'],
        lastEvent: { type: 'QuotaSet' },
      });
    });

    it('reports the period deterministically as JSON, CSV and HTML', async () => {
      const month = new Date().toISOString().slice(0, 7);
      const json = await h.request('GET', `/v1/reports/compliance?month=${month}`);
      expect(json.status).toBe(200);
      expect(json.body.placements).toEqual([{ region: 'eu-west', domainId: 'site-b', placements: 1 }]);
      expect(json.body.delegations).toEqual(
        expect.arrayContaining([{ kind: 'fallback', from: 'site-a', to: 'site-b', count: 1 }]),
      );
      expect(json.body.availability.map((r: any) => r.domainId)).toEqual(['site-a', 'site-b']);
      const csv1 = await h.request('GET', `/v1/reports/compliance?month=${month}&format=csv`);
      const csv2 = await h.request('GET', `/v1/reports/compliance?month=${month}&format=csv`);
      expect(csv1.body).toBe(csv2.body);
      expect(csv1.body).toContain('# placements\nregion,domainId,placements\neu-west,site-b,1\n');
      const html = await h.request('GET', `/v1/reports/usage?month=${month}&format=html`);
      expect(html.body).toContain('<h2>Usage per namespace (resource-hours)</h2>');
      const bad = await h.request('GET', '/v1/reports/usage?month=2026-13');
      expect([bad.status, bad.body.code]).toEqual([400, 'AUDIT.PERIOD_INVALID']);
      const scoped = await h.request('GET', `/v1/reports/placements?month=${month}`, undefined, as(TEAM_A));
      expect(scoped.body.rows).toEqual([]);
    });
  },
);
