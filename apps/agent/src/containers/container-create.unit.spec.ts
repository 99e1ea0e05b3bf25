import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AcceleratorDevice, AgentCommand } from '@hcn/contracts';
import { WorkloadRunner } from '../workload-runner';
import { createOptions } from './docker-engine';
import { ContainerEngine, ContainerRequest, ContainerStatus, EngineError } from './engine';

/**
 * A FAKE engine (named as such): it records the create request and keeps the container "running" forever. The
 * real engine runs in container.executor.int.spec.ts; here only the request the runner composes is checked.
 */
function recordingEngine(created: ContainerRequest[], calls: string[] = [], updates = true): ContainerEngine {
  const status: ContainerStatus = {
    id: 'c1',
    name: 'x',
    labels: {},
    running: true,
    live: true,
    pid: 42,
    exitCode: 0,
    oomKilled: false,
    error: '',
    startedAt: '',
    finishedAt: '',
    ports: [],
  };
  const never = new Promise<never>(() => undefined);
  return {
    ping: async () => undefined,
    hasImage: async () => true,
    pull: async () => undefined,
    create: async (request) => {
      created.push(request);
      calls.push(`create ${request.cpuMillis}`);
      return 'c1';
    },
    start: async () => void calls.push('start'),
    limitCpu: async (_id, cpuMillis) => {
      calls.push(`limitCpu ${cpuMillis}`);
      if (!updates) throw new EngineError('CONTAINER.UPDATE_FAILED', 'no update route');
    },
    inspect: async () => status,
    kill: async () => undefined,
    wait: () => never,
    follow: () => never,
    stats: async () => ({ cpuSeconds: 0, memoryBytes: 0 }),
    remove: async () => void calls.push('remove'),
    list: async () => [],
    exec: async () => 0,
  };
}

const gpu = (index: number): AcceleratorDevice => ({
  index,
  vendor: 'nvidia',
  model: 'NVIDIA H100 80GB HBM3',
  uuid: `GPU-${index}`,
  numaNode: 0,
  health: 100,
  interconnect: [],
});

function runCommand(
  devices: Extract<AgentCommand, { kind: 'run' }>['placement']['devices'],
  cpuMillis = 1500,
): Extract<AgentCommand, { kind: 'run' }> {
  return {
    commandId: randomUUID(),
    nodeId: randomUUID(),
    kind: 'run',
    placement: {
      workloadId: randomUUID(),
      allocationId: randomUUID(),
      instance: 0,
      attempt: 0,
      command: '',
      args: ['python', 'train.py'],
      env: { EPOCHS: '3' },
      stopGraceSeconds: 10,
      devices,
      container: {
        namespace: 'ml',
        image: 'registry.local/train:1',
        pullPolicy: 'ifNotPresent',
        ports: [{ containerPort: 8080, hostPort: 0, protocol: 'tcp' }],
        volumes: [{ source: 'datasets', target: '/data', readOnly: true }],
      },
      limits: { cpuMillis, memoryBytes: 2 ** 30 },
    },
  };
}

function runnerWith(engine: ContainerEngine): WorkloadRunner {
  return new WorkloadRunner(
    mkdtempSync(join(tmpdir(), 'hcn-create-')),
    () => 'node-1',
    () => undefined,
    {
      devices: () => [gpu(0), gpu(1), gpu(2)],
      vramGuardPath: '/usr/lib/hcn/libvramguard.so',
      containers: {
        engine,
        policy: {
          allowedHostPaths: [],
          pidsLimit: 512,
          ulimits: [{ name: 'nofile', soft: 1024, hard: 1024 }],
          cgroupParent: '/hcn-agent',
        },
        cgroups: 'none',
        keepFinished: 3,
      },
    },
  );
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

async function createdFor(command: AgentCommand): Promise<ReturnType<typeof createOptions>> {
  const created: ContainerRequest[] = [];
  if (command.kind !== 'run') throw new Error('a run command');
  runnerWith(recordingEngine(created)).run(command);
  await until(() => created.length > 0);
  expect(created).toHaveLength(1);
  return createOptions(created[0]);
}

describe('the engine create request of a container placement', () => {
  it('carries whole devices: device nodes, driver mounts read-only, visible-devices variables, limits, labels', async () => {
    const command = runCommand({
      vendor: 'nvidia',
      indexes: [0, 2],
      oneIsland: false,
      bandwidthGBps: 0,
      computeUnits: 2,
      scores: {},
    });
    const options = await createdFor(command);
    const p = command.kind === 'run' ? command.placement : undefined;
    expect(options.Image).toBe('registry.local/train:1');
    expect(options.Entrypoint).toBeUndefined(); // no command: the image's entrypoint
    expect(options.Cmd).toEqual(['python', 'train.py']);
    expect(options.Env).toEqual(
      expect.arrayContaining([
        'EPOCHS=3',
        'CUDA_VISIBLE_DEVICES=GPU-0,GPU-2',
        'NVIDIA_VISIBLE_DEVICES=GPU-0,GPU-2',
        'NCCL_P2P_DISABLE=1',
        `HCN_ALLOCATION_ID=${p?.allocationId}`,
      ]),
    );
    expect(options.Env?.some((e) => e.startsWith('LD_PRELOAD='))).toBe(false);
    expect(options.Labels).toEqual({
      'hcn.allocation': p?.allocationId,
      'hcn.workload': p?.workloadId,
      'hcn.namespace': 'ml',
      'hcn.node': 'node-1',
      'hcn.stop-grace-seconds': '10',
      'hcn.cpu-millis': '1500',
    });
    expect(options.HostConfig?.Devices).toEqual(
      ['/dev/nvidia0', '/dev/nvidia2', '/dev/nvidiactl', '/dev/nvidia-uvm', '/dev/nvidia-uvm-tools'].map(
        (d) => ({ PathOnHost: d, PathInContainer: d, CgroupPermissions: 'rwm' }),
      ),
    );
    expect(options.HostConfig?.Binds).toEqual([
      '/usr/lib/x86_64-linux-gnu/libcuda.so.1:/usr/lib/x86_64-linux-gnu/libcuda.so.1:ro',
      '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1:/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1:ro',
      '/usr/bin/nvidia-smi:/usr/bin/nvidia-smi:ro',
      'datasets:/data:ro',
    ]);
    expect(options.HostConfig).toMatchObject({
      Memory: 2 ** 30,
      MemorySwap: 2 ** 30,
      NanoCpus: 1_500_000_000,
      PidsLimit: 512,
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }],
      CgroupParent: `/hcn-agent/${p?.allocationId}`,
      PortBindings: { '8080/tcp': [{ HostIp: '', HostPort: '' }] },
    });
    expect(options.ExposedPorts).toEqual({ '8080/tcp': {} });
  });

  it('carries a memory slice: the vram-guard bind-mounted read-only and preloaded from where the container sees it', async () => {
    const options = await createdFor(
      runCommand({
        vendor: 'nvidia',
        indexes: [1],
        oneIsland: true,
        bandwidthGBps: 0,
        computeUnits: 1,
        scores: {},
        sliceMemoryBytes: 8 * 2 ** 30,
      }),
    );
    expect(options.Env).toEqual(
      expect.arrayContaining([
        'LD_PRELOAD=/opt/hcn/libvramguard.so',
        `HCN_VRAM_QUOTA_BYTES=${8 * 2 ** 30}`,
        'CUDA_VISIBLE_DEVICES=GPU-1',
      ]),
    );
    expect(options.HostConfig?.Binds).toContain('/usr/lib/hcn/libvramguard.so:/opt/hcn/libvramguard.so:ro');
  });

  it('starts a container under 250 millicores with 250 and lowers it to its own quota right after the start', async () => {
    const calls: string[] = [];
    runnerWith(recordingEngine([], calls)).run(runCommand(undefined, 10));
    await until(() => calls.length >= 3);
    expect(calls).toEqual(['create 250', 'start', 'limitCpu 10']);
  });

  it('removes a container whose quota the engine cannot lower, and starts the next ones with their own', async () => {
    const calls: string[] = [];
    const runner = runnerWith(recordingEngine([], calls, false));
    runner.run(runCommand(undefined, 10));
    await until(() => calls.includes('remove'));
    runner.run(runCommand(undefined, 10));
    await until(() => calls.filter((c) => c === 'start').length === 2);
    expect(calls.slice(0, 4)).toEqual(['create 250', 'start', 'limitCpu 10', 'remove']);
    expect(calls.slice(4, 6)).toEqual(['create 10', 'start']);
    expect(calls).not.toContain('limitCpu 250');
  });
});
