// Tool outputs come from ./fixtures, written to match each tool's documented format; none could be checked
// against real devices here.
import { deviceFingerprint, nodeDevicesSchema } from '@hcn/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectAccelerators, sampleDeviceUsage } from './accelerators';
import { declaredDevicesSchema } from './declared-devices';
import type { ToolRunner } from './tool-runner';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

const TOOLS: Record<string, string> = {
  'nvidia-smi --query-gpu': 'nvidia-smi-8gpu.csv',
  'nvidia-smi topo': 'nvidia-topo-2x4.txt',
  'npu-smi info': 'npu-smi-910b-8npu.txt',
  'rocm-smi --showproductname': 'rocm-smi-dcu-4.txt',
  'cnmon info': 'cnmon-info-mlu370-4.txt',
};

/** A runner with the given tools installed (by key prefix of TOOLS). */
const runnerWith =
  (...installed: string[]): ToolRunner =>
  async (command, args) => {
    const key = Object.keys(TOOLS).find((k) => `${command} ${args.join(' ')}`.startsWith(k));
    return key && installed.some((tool) => key.startsWith(tool)) ? fixture(TOOLS[key]) : null;
  };

describe('detectAccelerators', () => {
  it.each([
    ['no vendor tools', [], {}],
    ['NVIDIA only', ['nvidia-smi'], { nvidia: 8 }],
    ['Ascend only', ['npu-smi'], { ascend: 8 }],
    ['Hygon through rocm-smi', ['rocm-smi'], { hygon: 4 }],
    ['Cambricon only', ['cnmon'], { cambricon: 4 }],
    [
      'every vendor',
      ['nvidia-smi', 'npu-smi', 'rocm-smi', 'cnmon'],
      { nvidia: 8, ascend: 8, hygon: 4, cambricon: 4 },
    ],
  ])('%s', async (_name, installed, counts) => {
    const found = await detectAccelerators({ run: runnerWith(...installed) });
    const byVendor: Record<string, number> = {};
    for (const d of found.devices) byVendor[d.vendor] = (byVendor[d.vendor] ?? 0) + 1;
    expect(byVendor).toEqual(counts);
    expect(found.source).toBe('detected');
    expect(found.warnings).toEqual([]);
    expect(found.usage).toHaveLength(found.devices.length);
    expect(found.fingerprint).toBe(deviceFingerprint(found.devices));
    expect(nodeDevicesSchema.parse({ devices: found.devices, fingerprint: found.fingerprint })).toBeTruthy();
  });

  it('returns declared devices without running any tool', async () => {
    const declared = declaredDevicesSchema.parse([
      { vendor: 'ascend', model: '910B', memory: '64Gi', count: 8 },
    ]);
    const found = await detectAccelerators({
      declared,
      run: async () => {
        throw new Error('must not run');
      },
    });
    expect(found.source).toBe('declared');
    expect(found.devices).toHaveLength(8);
    expect(found.usage[7]).toEqual({
      index: 7,
      vendor: 'ascend',
      utilization: 0,
      memoryUsedBytes: 0,
      health: 100,
    });
    expect((await detectAccelerators({ declared: [] })).devices).toEqual([]);
  });

  it('turns a runner that throws into warnings, never a rejection', async () => {
    const found = await detectAccelerators({
      run: async () => {
        throw new Error('boom');
      },
    });
    expect(found.devices).toEqual([]);
    expect(found.warnings).toHaveLength(4);
    expect(found.warnings[0]).toBe('nvidia: detection failed: boom');
  });
});

describe('sampleDeviceUsage', () => {
  it('asks only the registered vendors, and NVIDIA without the topology', async () => {
    const calls: string[] = [];
    const all = runnerWith('nvidia-smi', 'npu-smi', 'rocm-smi', 'cnmon');
    const recording: ToolRunner = async (command, args) => {
      calls.push(`${command} ${args[0]}`);
      return all(command, args);
    };
    const usage = await sampleDeviceUsage(new Set(['nvidia', 'ascend'] as const), { run: recording });
    expect(usage.map((u) => u.vendor)).toEqual([...Array(8).fill('nvidia'), ...Array(8).fill('ascend')]);
    expect(calls.sort()).toEqual(['npu-smi info', expect.stringMatching(/^nvidia-smi --query-gpu=/)]);
  });

  it('reads declared devices without any tool', async () => {
    const declared = declaredDevicesSchema.parse([
      { vendor: 'nvidia', model: 'NVIDIA A100-SXM4-80GB', count: 2 },
    ]);
    const usage = await sampleDeviceUsage(new Set(['nvidia'] as const), {
      declared,
      run: async () => {
        throw new Error('no tool may run');
      },
    });
    expect(usage.map((u) => [u.index, u.health])).toEqual([
      [0, 100],
      [1, 100],
    ]);
  });
});
