import { heartbeatStream, quotaStream, workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, processSpec, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

const GiB = 2 ** 30;
const GUARD_DIR = resolve(__dirname, '../../../native/vram-guard');

/** A node declaring 4 A100s: 0–1 one NVLink island, 2 and 3 alone; uuids for 0–1. */
const AGENT_YAML = `
devices:
  - vendor: nvidia
    model: NVIDIA A100-SXM4-80GB
    memory: 80Gi
    entries:
      - { index: 0, uuid: GPU-aaaa }
      - { index: 1, uuid: GPU-bbbb }
      - { index: 2 }
      - { index: 3 }
    islands: [[0, 1]]
`;

/**
 * Device placement end to end (hub + agent, real PostgreSQL, in-process bus, real processes): the decision picks
 * devices, the node stream holds them, the agent exposes exactly them and preloads the real vram-guard for a slice.
 */
describeWithPostgres('accelerator devices end to end (declared devices, real processes)', () => {
  let dataDir: string;
  let h: HubHarness;
  let agent: Agent;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    execFileSync('make', ['-s', '-C', GUARD_DIR, 'libvramguard.so']);
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-devices-'));
    writeFileSync(join(dataDir, 'agent.yaml'), AGENT_YAML);
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    const config = loadAgentConfig({
      HCN_AGENT_CONFIG: join(dataDir, 'agent.yaml'),
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-gpu',
      HCN_DATA_DIR: dataDir,
      HCN_VRAM_GUARD: join(GUARD_DIR, 'libvramguard.so'),
    });
    agent = new Agent(config, bus);
    await agent.start();
  }, 60000);
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ECHO =
    'echo "cuda=$CUDA_VISIBLE_DEVICES p2p=${NCCL_P2P_DISABLE:-on} quota=${HCN_VRAM_QUOTA_BYTES:-none} preload=${LD_PRELOAD:-none}"';
  async function run(
    devices: Record<string, unknown>,
    accelerators: number,
  ): Promise<{ id: string; line: string }> {
    const spec = processSpec({ args: ['-c', ECHO], devices });
    const response = await h.request('POST', '/v1/workloads', {
      ...spec,
      resources: { ...(spec as { resources: object }).resources, accelerators },
    });
    expect(response.status).toBe(201);
    const id = response.body.workloadId as string;
    let line = '';
    await eventuallyExpect(async () => {
      const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=5`)).body;
      line =
        logs.allocations?.[0]?.lines?.find((l: { line: string }) => l.line.startsWith('cuda='))?.line ?? '';
      expect(line).not.toBe('');
    }, 15000);
    return { id, line };
  }
  const placed = async (id: string) =>
    (await h.store.readStream(workloadStream(id))).find((e) => e.type === 'AllocationPlaced')!.data;

  it('two devices in one island: the NVLink pair by uuid, P2P left on, the decision records why', async () => {
    const { id, line } = await run({ count: 2, topology: 'same-island' }, 2);
    expect(line).toBe('cuda=GPU-aaaa,GPU-bbbb p2p=on quota=none preload=none');
    const data = await placed(id);
    expect(data.devices).toMatchObject({ indexes: [0, 1], scores: { topology: 100 } });
  }, 30000);

  it('a memory slice: the real vram-guard preloaded with the slice as quota', async () => {
    const { id, line } = await run({ sliceMemoryBytes: 10 * GiB }, 0);
    const [index] = (await placed(id)).devices!.indexes;
    const visible = ['GPU-aaaa', 'GPU-bbbb', '2', '3'][index];
    expect(line).toBe(
      `cuda=${visible} p2p=on quota=${10 * GiB} preload=${join(GUARD_DIR, 'libvramguard.so')}`,
    );
  }, 30000);

  it('refuses, with 422 and nothing written, a device larger than any the fleet has', async () => {
    const spec = processSpec({ args: ['-c', 'true'], devices: { memoryPerDeviceBytes: 96 * GiB } });
    const response = await h.request('POST', '/v1/workloads', {
      ...spec,
      resources: { ...(spec as { resources: object }).resources, accelerators: 1 },
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('WORKLOAD.DEVICE_REQUEST_TOO_LARGE');
    const written = await h.store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['workload-'] } });
    expect(new Set(written.map((e) => e.streamId)).size).toBe(2); // the two placed above, nothing from this request
  });

  it('GET /v1/nodes/:id shows how each device is handed out (whole or as slices)', async () => {
    const holder = await h.request('POST', '/v1/workloads', {
      ...processSpec({
        args: ['-c', 'exec sleep 30'],
        devices: { count: 1, topology: 'same-island' },
        stopGraceSeconds: 1,
      }),
      resources: { cpuMillis: 100, memoryBytes: 2 ** 20, accelerators: 1 },
    });
    const slice = await h.request('POST', '/v1/workloads', {
      ...processSpec({
        args: ['-c', 'exec sleep 30'],
        devices: { sliceMemoryBytes: 4 * GiB },
        stopGraceSeconds: 1,
      }),
      resources: { cpuMillis: 100, memoryBytes: 2 ** 20, accelerators: 0 },
    });
    expect([holder.status, slice.status]).toEqual([201, 201]);
    const wholeAt = (await placed(holder.body.workloadId)).devices!.indexes[0];
    const sliceAt = (await placed(slice.body.workloadId)).devices!.indexes[0];
    await eventuallyExpect(async () => {
      const node = (await h.request('GET', `/v1/nodes/${agent.nodeId}`)).body;
      const byIndex = new Map(
        node.devices.map((d: { index: number; allocation: unknown }) => [d.index, d.allocation]),
      );
      expect(byIndex.get(wholeAt)).toMatchObject({ wholeDevice: true, slices: [] });
      expect(byIndex.get(sliceAt)).toMatchObject({ wholeDevice: false, slices: [{ memoryBytes: 4 * GiB }] });
    }, 10000);
    for (const id of [holder.body.workloadId, slice.body.workloadId])
      await h.request('DELETE', `/v1/workloads/${id}`);
  }, 30000);

  it('heartbeats carry the usage and health of every device', async () => {
    await eventuallyExpect(async () => {
      const beats = await h.store.readStream(heartbeatStream(agent.nodeId!), {
        direction: 'backwards',
        maxCount: 1,
      });
      const devices = beats[0]?.type === 'NodeHeartbeatRecorded' ? beats[0].data.devices : undefined;
      expect(devices?.map((d) => [d.index, d.health])).toEqual([
        [0, 100],
        [1, 100],
        [2, 100],
        [3, 100],
      ]);
    }, 10000);
  });

  it('holds accelerator memory and compute units against the quota, and refuses undeclared amounts', async () => {
    const limits = { acceleratorMemoryBytes: 100 * GiB, computeUnits: 2 };
    expect((await h.request('PUT', '/v1/quotas/gpu-team', { limits })).status).toBe(200);
    const submit = (devices: Record<string, unknown>) =>
      h.request('POST', '/v1/workloads', {
        ...processSpec({ namespace: 'gpu-team', args: ['-c', 'sleep 5'], devices }),
        resources: { cpuMillis: 100, memoryBytes: 2 ** 20, accelerators: 1 },
      });
    const undeclared = await submit({ count: 1 });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body.code).toBe('QUOTA.DEVICE_AMOUNT_UNDECLARED');
    expect((await submit({ count: 1, memoryPerDeviceBytes: 60 * GiB, computeUnits: 1 })).status).toBe(201);
    const over = await submit({ count: 1, memoryPerDeviceBytes: 60 * GiB, computeUnits: 1 });
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('QUOTA.EXCEEDED');
    const consumed = (await h.store.readStream(quotaStream('gpu-team'))).filter(
      (e) => e.type === 'QuotaConsumed',
    );
    expect(consumed.map((e) => e.data)).toEqual([
      expect.objectContaining({
        resources: expect.objectContaining({ acceleratorMemoryBytes: 60 * GiB, computeUnits: 1 }),
      }),
    ]);
  });

  it('refuses an unknown model with 400', async () => {
    const spec = processSpec({ args: ['-c', 'true'], devices: { models: { allow: ['TPU v5'] } } });
    const response = await h.request('POST', '/v1/workloads', {
      ...spec,
      resources: { ...(spec as { resources: object }).resources, accelerators: 1 },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('WORKLOAD.SPEC');
  });
});
