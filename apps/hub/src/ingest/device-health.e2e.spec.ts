import { nodeStream, workloadStream } from '@hcn/contracts';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { signedReport, HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

const GiB = 2 ** 30;
const gpu = (index: number) => ({
  index,
  vendor: 'nvidia',
  model: 'NVIDIA A100-SXM4-80GB',
  memoryBytes: 80 * GiB,
  numaNode: 0,
  health: 100,
  interconnect: [],
});

/** Device health reported in heartbeats reaches the node stream and the scheduler (hub, real PostgreSQL). */
describeWithPostgres('device health from heartbeats (hub, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '60', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('records a device turning unhealthy once, and the scheduler stops choosing it', async () => {
    const node = await registerNode(h, {
      hostname: 'gpu-health',
      domainId: 'site-gh',
      accelerators: 2,
      devices: [gpu(0), gpu(1)],
    });
    const beat = (seq: number, health0: number) => ({
      kind: 'heartbeat',
      nodeId: node.nodeId,
      domainId: 'site-gh',
      seq,
      sentAt: new Date().toISOString(),
      usage: { cpuUsage: 0.1, memoryUsedBytes: GiB, diskUsedBytes: GiB },
      devices: [
        { index: 0, vendor: 'nvidia', utilization: 0, memoryUsedBytes: 0, health: health0 },
        { index: 1, vendor: 'nvidia', utilization: 0, memoryUsedBytes: 0, health: 100 },
      ],
      runningAllocations: [],
      final: false,
    });
    const send = (reports: Record<string, unknown>[]) =>
      h.bus.publish(
        AGENT_REPORTS_TOPIC,
        reports.map((r) => ({ key: node.nodeId, value: signedReport(node, r) })),
      );
    const healthEvents = async () =>
      (await h.store.readStream(nodeStream(node.nodeId))).filter((e) => e.type === 'NodeDeviceHealthChanged');

    await send([beat(1, 97)]); // a 3-point wobble: nothing recorded
    await send([beat(2, 20)]); // below the threshold: recorded
    await eventually('the health change recorded', async () => (await healthEvents()).length === 1);
    await send([beat(3, 20), beat(4, 21)]); // steady: nothing more
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await healthEvents();
    expect(events.map((e) => e.data)).toEqual([
      { nodeId: node.nodeId, devices: [{ vendor: 'nvidia', index: 0, health: 20 }] },
    ]);

    const submitted = await h.request('POST', '/v1/workloads', {
      ...processSpec({
        args: ['-c', 'true'],
        devices: { count: 1 },
        constraints: { domains: { affinity: ['site-gh'], antiAffinity: [] } },
      }),
      resources: { cpuMillis: 100, memoryBytes: 2 ** 20, accelerators: 1 },
    });
    expect(submitted.status).toBe(201);
    const placed = (await h.store.readStream(workloadStream(submitted.body.workloadId))).find(
      (e) => e.type === 'AllocationPlaced',
    );
    expect(placed!.data.devices?.indexes).toEqual([1]);
  }, 30000);
});
