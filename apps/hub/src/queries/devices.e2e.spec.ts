import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { signedReport, HubHarness, registerNode, startHubHarness } from '../testing/hub-harness';

const GPU = (index: number) => ({
  index,
  vendor: 'nvidia',
  model: 'H100',
  memoryBytes: 80 * 2 ** 30,
  numaNode: 0,
  health: 100,
  interconnect: [],
});

describeWithPostgres('GET /v1/devices (device_state read model, hub + projector, real PostgreSQL)', () => {
  let h: HubHarness;
  let gpuNode: { nodeId: string; credential: string; commandKey: string };

  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
    gpuNode = await registerNode(h, {
      domainId: 'dev-gpu',
      hostname: 'gpu-1',
      accelerators: 2,
      devices: [GPU(0), GPU(1)],
    });
    await registerNode(h, { domainId: 'dev-cpu', hostname: 'cpu-1' });
  });
  afterAll(async () => h?.close());

  const heartbeat = (seq: number, devices: unknown[]) =>
    h.bus.publish(AGENT_REPORTS_TOPIC, [
      {
        key: gpuNode.nodeId,
        value: signedReport(gpuNode, {
          kind: 'heartbeat',
          nodeId: gpuNode.nodeId,
          domainId: 'dev-gpu',
          seq,
          sentAt: new Date().toISOString(),
          usage: { cpuUsage: 0.1, memoryUsedBytes: 2 ** 30, diskUsedBytes: 2 ** 30 },
          devices,
        }),
      },
    ]);

  it('lists the registered devices, then their usage from heartbeats', async () => {
    await eventuallyExpect(async () => {
      const r = await h.request('GET', '/v1/devices');
      expect(r.body.items.map((d: any) => [d.hostname, d.vendor, d.index, d.model, d.health])).toEqual([
        ['gpu-1', 'nvidia', 0, 'H100', 100],
        ['gpu-1', 'nvidia', 1, 'H100', 100],
      ]);
      expect(r.body.items[0]).toMatchObject({ domainId: 'dev-gpu', nodeStatus: 'online', utilization: null });
    });
    await heartbeat(1, [
      {
        index: 0,
        vendor: 'nvidia',
        utilization: 0.9,
        memoryUsedBytes: 60 * 2 ** 30,
        temperatureC: 71,
        health: 100,
      },
      { index: 1, utilization: 0.1, memoryUsedBytes: 2 ** 30, health: 40 },
    ]);
    await eventuallyExpect(async () => {
      const r = await h.request('GET', '/v1/devices?sort=utilization&order=desc');
      expect(
        r.body.items.map((d: any) => [d.index, d.utilization, d.memoryUsedBytes, d.temperatureC, d.health]),
      ).toEqual([
        [0, 0.9, 60 * 2 ** 30, 71, 100],
        [1, 0.1, 2 ** 30, null, 40],
      ]);
    });
    await heartbeat(0, [{ index: 1, utilization: 1, memoryUsedBytes: 0, health: 100 }]); // older seq: ignored
    await heartbeat(2, [{ index: 1, utilization: 0.5, memoryUsedBytes: 0, health: 35 }]);
    await eventuallyExpect(async () => {
      const r = await h.request('GET', `/v1/devices?nodeId=${gpuNode.nodeId}&maxHealth=50`);
      expect(r.body.items.map((d: any) => [d.index, d.utilization, d.health])).toEqual([[1, 0.5, 35]]);
    });
  });

  it('filters, paginates and refuses bad parameters; documented in OpenAPI', async () => {
    expect((await h.request('GET', '/v1/devices?domain=dev-cpu')).body.total).toBe(0);
    const first = await h.request('GET', '/v1/devices?vendor=nvidia&limit=1');
    const page = await h.request('GET', `/v1/devices?vendor=nvidia&limit=1&cursor=${first.body.nextCursor}`);
    expect([page.body.total, page.body.items.length, page.body.items[0].index]).toEqual([2, 1, 1]);
    expect(page.body.nextCursor).toBeNull();
    expect(
      (await h.request('GET', '/v1/devices?minUtilization=0.8')).body.items.map((d: any) => d.index),
    ).toEqual([0]);
    const bad = await h.request('GET', '/v1/devices?vendor=acme&maxHealth=101');
    expect([bad.status, bad.body.code]).toEqual([400, 'DEVICES.QUERY']);
    const doc = (await h.request('GET', '/docs/openapi.json')).body;
    expect(doc.paths['/v1/devices'].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['nodeId', 'vendor', 'maxHealth', 'sort', 'limit', 'cursor']),
    );
  });

  it('drops devices a re-registration no longer has', async () => {
    await registerNode(
      h,
      { nodeId: gpuNode.nodeId, domainId: 'dev-gpu', hostname: 'gpu-1', accelerators: 1, devices: [GPU(0)] },
      gpuNode.credential,
    );
    await eventuallyExpect(async () => {
      const r = await h.request('GET', `/v1/devices?nodeId=${gpuNode.nodeId}`);
      expect(r.body.items.map((d: any) => [d.index, d.utilization])).toEqual([[0, 0.9]]);
    });
  });
});
