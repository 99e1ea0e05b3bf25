import { nodeStream, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';

/** Node removal: DELETE /v1/nodes/:id, and the sweep of nodes offline too long (real PostgreSQL). */
describeWithPostgres('deregistering nodes (hub, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  // heartbeats are never sent here: a node goes offline after its 1 s TTL, and is purged 2 s after that
  beforeAll(
    async () =>
      (h = await startHubHarness({
        HCN_NODE_TTL_SECONDS: '1',
        HCN_NODE_PURGE_AFTER_SECONDS: '2',
        HCN_START_DEADLINE_SECONDS: '600',
      })),
  );
  afterAll(async () => h?.close());

  const types = async (stream: string) => (await h.store.readStream(stream)).map((e) => e.type);

  it('removes a node on request: its allocations are lost, its history stays, a second request is 410', async () => {
    const node = await registerNode(h, { hostname: 'leaving', domainId: 'site-leaving' });
    const spec = processSpec({ constraints: { domains: { affinity: ['site-leaving'] } } });
    const submitted = await h.request('POST', '/v1/workloads', spec);
    expect(submitted.status).toBe(201);
    const workload = workloadStream(submitted.body.workloadId);
    await eventuallyExpect(async () => expect(await types(workload)).toContain('AllocationPlaced'), 10000);

    const byViewer = await h.request('DELETE', `/v1/nodes/${node.nodeId}`, undefined, {
      authorization: `Bearer ${node.credential}`,
    });
    expect(byViewer.status).toBe(401);
    const removed = await h.request('DELETE', `/v1/nodes/${node.nodeId}`, { reason: 'decommissioned' });
    expect([removed.status, removed.body.events]).toEqual([200, ['NodeDeregistered']]);

    await eventuallyExpect(async () => {
      const lost = (await h.store.readStream(workload)).find((e) => e.type === 'AllocationLost');
      expect(lost?.data).toMatchObject({ reason: `node ${node.nodeId} was deregistered` });
    }, 10000);
    expect(await types(nodeStream(node.nodeId))).toEqual([
      'NodeRegistered',
      'CapacityReserved',
      'NodeDeregistered',
    ]);
    await eventuallyExpect(async () => {
      const view = await h.request('GET', `/v1/nodes/${node.nodeId}`);
      expect(view.body.status).toBe('deregistered');
    }, 10000);
    const again = await h.request('DELETE', `/v1/nodes/${node.nodeId}`);
    expect([again.status, again.body.code]).toEqual([410, 'NODE.DEREGISTERED']);
    const unknown = await h.request('DELETE', `/v1/nodes/${randomUUID()}`);
    expect(unknown.status).toBe(404);
  });

  it('deregisters a node offline for longer than HCN_NODE_PURGE_AFTER_SECONDS', async () => {
    const node = await registerNode(h, { hostname: 'silent', domainId: 'site-silent' });
    await eventuallyExpect(
      async () => expect(await types(nodeStream(node.nodeId))).toContain('NodeWentOffline'),
      10000,
    );
    const offlineAt = Date.now();
    await eventuallyExpect(async () => {
      const events = await h.store.readStream(nodeStream(node.nodeId));
      const gone = events.find((e) => e.type === 'NodeDeregistered');
      expect(gone?.data).toMatchObject({ reason: expect.stringContaining('HCN_NODE_PURGE_AFTER_SECONDS') });
    }, 15000);
    expect(Date.now() - offlineAt).toBeGreaterThanOrEqual(1500);
  });
});
