import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { HubHarness, registerNode, startHubHarness } from '../testing/hub-harness';

describeWithPostgres('a failing subscription (hub + projector, real PostgreSQL)', () => {
  let h: HubHarness;
  beforeAll(async () => (h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' })));
  afterAll(async () => {
    await h?.db.query('ALTER TABLE IF EXISTS node_state_away RENAME TO node_state').catch(() => undefined);
    await h?.close();
  });

  it('fails readiness with its name while its writes fail, then resumes from its checkpoint: nothing lost', async () => {
    await registerNode(h, { hostname: 'before-fault' });
    await eventuallyExpect(async () =>
      expect((await h.request('GET', '/v1/nodes')).body.items).toHaveLength(1),
    );
    // the projector's table goes away under it: every write of the next batch fails
    await h.db.query('ALTER TABLE node_state RENAME TO node_state_away');
    const { nodeId } = await registerNode(h, { hostname: 'during-fault' });
    await eventuallyExpect(async () => {
      const ready = await h.request('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks['subscription:projector']).toMatch(/^failing since .+ \(\d+ failures\)$/);
    }, 10_000);
    const metrics = (await h.request('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/hcn_subscription_failing\{subscription="projector"\} 1/);
    expect(metrics).toMatch(/hcn_subscription_failing\{subscription="dispatcher"\} 0/);

    await h.db.query('ALTER TABLE node_state_away RENAME TO node_state');
    await eventuallyExpect(async () => expect((await h.request('GET', '/readyz')).status).toBe(200), 40_000);
    await eventuallyExpect(async () => {
      const nodes = (await h.request('GET', '/v1/nodes')).body.items as { nodeId: string }[];
      expect(nodes.map((n) => n.nodeId)).toContain(nodeId);
      expect(nodes).toHaveLength(2);
    });
    const after = (await h.request('GET', '/metrics')).body as string;
    expect(after).toMatch(/hcn_subscription_failing\{subscription="projector"\} 0/);
  });
});
