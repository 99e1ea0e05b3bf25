import { workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';
import { siteDelegationLog } from '../testing/site-delegation-log';

const TEAM_A = 'hops-team-a-token-0123456789';
const tokens = [{ name: 'team-a', token: TEAM_A, role: 'viewer', namespaces: ['team-a'] }];

describeWithPostgres(
  'GET /v1/delegations (delegation_hops read model, hub + projector, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let wideId: string;
    let bId: string;
    let smallNode: string;
    let bigNode: string;

    beforeAll(async () => {
      h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
      smallNode = (await registerNode(h, { domainId: 'hops-small', hostname: 'small', cpuCores: 1 })).nodeId;
      bigNode = (await registerNode(h, { domainId: 'hops-big', hostname: 'big', cpuCores: 16 })).nodeId;
      const submit = async (namespace: string, cpuMillis: number) => {
        const r = await h.request(
          'POST',
          '/v1/workloads',
          processSpec({ namespace, resources: { cpuMillis, memoryBytes: 2 ** 26 } }),
        );
        expect(r.status).toBe(201);
        return r.body.workloadId as string;
      };
      wideId = await submit('team-a', 4000);
      bId = await submit('team-b', 500);
    });
    afterAll(async () => h?.close());

    it('projects every step of the chain, as the workload stream records it', async () => {
      const view = (await h.request('GET', `/v1/workloads/${wideId}`)).body;
      const steps = view.delegations.flatMap((d: any) => d.steps);
      await eventuallyExpect(async () => {
        const r = await h.request('GET', `/v1/delegations?workloadId=${wideId}&order=asc`);
        expect(r.status).toBe(200);
        expect(r.body.items.map((i: any) => i.revision)).toEqual(steps.map((s: any) => s.revision));
      });
      const r = await h.request('GET', `/v1/delegations?workloadId=${wideId}&order=asc`);
      const placed = r.body.items.find((i: any) => i.type === 'placed');
      expect(placed).toMatchObject({
        namespace: 'team-a',
        target: bigNode,
        scope: 'hops-big',
        targetKind: 'node',
      });
      const root = r.body.items.find((i: any) => i.type === 'delegated' && i.hop === 0);
      expect(root.considered).toBe(2);
      expect(root.filtered).toBe(1); // the small domain cannot hold 4 cores
      const refused = root.candidates.find((c: any) => c.id === 'hops-small');
      expect(refused.accepted).toBe(false);
      const byReason = await h.request('GET', `/v1/delegations?reason=${refused.reason}`);
      expect(byReason.body.items.length).toBe(0); // a filtered candidate is not a rejection of the scope
    });

    it('filters by type, scope and target, sorts, paginates, and keeps to the token namespaces', async () => {
      await eventuallyExpect(async () => {
        const all = await h.request('GET', '/v1/delegations?type=placed');
        expect(all.body.total).toBe(2);
      });
      const path = '/v1/delegations?type=delegated&type=placed&limit=1&order=asc';
      const first = await h.request('GET', path);
      const page = await h.request('GET', `${path}&cursor=${first.body.nextCursor}`);
      expect(page.body.items.length).toBe(1);
      expect(page.body.items[0]).not.toEqual(first.body.items[0]);
      expect(page.body.total).toBeGreaterThanOrEqual(4);
      const onBig = await h.request('GET', `/v1/delegations?target=${bigNode}&type=placed`);
      expect(onBig.body.items.map((i: any) => i.workloadId)).toContain(wideId);
      expect(onBig.body.items.every((i: any) => i.target === bigNode)).toBe(true);
      const placedB = await h.request('GET', `/v1/delegations?workloadId=${bId}&type=placed`);
      expect([smallNode, bigNode]).toContain(placedB.body.items[0].target);
      const fromRoot = await h.request('GET', '/v1/delegations?scope=hops-big&sort=filtered');
      expect(fromRoot.body.items.every((i: any) => i.scope === 'hops-big')).toBe(true);

      const scoped = await h.request('GET', '/v1/delegations', undefined, {
        authorization: `Bearer ${TEAM_A}`,
      });
      expect(scoped.body.items.length).toBeGreaterThan(0);
      expect(scoped.body.items.every((i: any) => i.namespace === 'team-a')).toBe(true);
      const other = await h.request('GET', `/v1/delegations?workloadId=${bId}`, undefined, {
        authorization: `Bearer ${TEAM_A}`,
      });
      expect(other.body.total).toBe(0);
      const bad = await h.request('GET', '/v1/delegations?type=nope&limit=0');
      expect([bad.status, bad.body.code]).toEqual([400, 'DELEGATIONS.QUERY']);
    });

    it('counts hand-overs to other sites and their refusals per site and bucket (federation)', async () => {
      const workloadId = randomUUID();
      const events = siteDelegationLog(workloadId, 'team-a', ['child-a', 'child-b', 'child-a']);
      await h.store.append(workloadStream(workloadId), events, 'no_stream');
      const timeline = async (query: string, authorization?: string) =>
        h.request('GET', `/v1/delegations/sites${query}`, undefined, authorization ? { authorization } : {});
      await eventuallyExpect(async () => {
        const r = await timeline('?bucketSeconds=3600');
        expect(r.status).toBe(200);
        const bySite = Object.fromEntries(r.body.buckets.map((b: any) => [b.siteId, [b.sent, b.rejected]]));
        expect(bySite).toEqual({ 'child-a': [2, 2], 'child-b': [1, 1] });
      });
      const steps = await h.request('GET', `/v1/delegations?workloadId=${workloadId}&type=site&order=asc`);
      expect(steps.body.items.map((i: any) => [i.target, i.targetKind, i.detail])).toEqual([
        ['site:child-a', 'site', 'child'],
        ['site:child-b', 'site', 'child'],
        ['site:child-a', 'site', 'child'],
      ]);
      const scoped = await timeline('?bucketSeconds=3600', `Bearer ${TEAM_A}`);
      expect(scoped.body.buckets.length).toBe(2); // team-a's own workload
      const hidden = await h.request('GET', '/v1/delegations/sites', undefined, {
        authorization: 'Bearer nobody-0123456789',
      });
      expect(hidden.status).toBe(401);
      const past = await timeline('?until=2020-01-01T00:00:00Z&bucketSeconds=60');
      expect(past.body.buckets).toEqual([]);
      for (const bad of [
        '?bucketSeconds=1',
        '?bucketSeconds=0',
        '?since=2026-01-01T00:00:00Z&until=2025-01-01T00:00:00Z',
        '?site=x',
      ]) {
        const r = await timeline(bad);
        expect([bad, r.status, r.body.code]).toEqual([bad, 400, 'DELEGATIONS.QUERY']);
      }
    });

    it('exports each projection lag', async () => {
      const metrics = (await h.request('GET', '/metrics')).body as string;
      for (const name of ['delegation-hops', 'workloads', 'node-state']) {
        expect(metrics).toMatch(new RegExp(`hcn_projection_lag_seconds\\{projection="${name}"\\} \\d`));
      }
    });

    it('documents the filters in OpenAPI', async () => {
      const doc = (await h.request('GET', '/docs/openapi.json')).body;
      const params = doc.paths['/v1/delegations'].get.parameters.map((p: any) => p.name);
      expect(params).toEqual(
        expect.arrayContaining(['workloadId', 'type', 'scope', 'reason', 'sort', 'limit']),
      );
    });
  },
);
