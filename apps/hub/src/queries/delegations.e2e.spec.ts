import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

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
