// Fixtures under ./fixtures: the *-h100 ones were recorded on a real NVIDIA H100 80GB HBM3 (driver 580.159.04)
// by native/vram-guard/scripts/device-session.sh; the others were written to match nvidia-smi's documented
// CSV query and `topo -m` formats.
import { interconnectIslands } from '@hcn/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectNvidia, parseNvidiaSmiCsv, withNvidiaTopology } from './nvidia.detector';
import { parseNvidiaTopology, topoEntryLink } from './nvidia-topo';
import type { ToolRunner } from './tool-runner';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const MIB = 1024 * 1024;

describe('parseNvidiaSmiCsv', () => {
  it('reads an 8-GPU box', () => {
    const { devices, usage, warnings } = parseNvidiaSmiCsv(fixture('nvidia-smi-8gpu.csv'));
    expect(warnings).toEqual([]);
    expect(devices.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(devices[1]).toEqual({
      index: 1,
      vendor: 'nvidia',
      model: 'NVIDIA A800-SXM4-80GB',
      uuid: 'GPU-00000001-1c2d-4e5f-8a9b-0c1d2e3f4a51',
      memoryBytes: 81920 * MIB,
      busId: '00000000:13:00.0',
      numaNode: null,
      health: 100,
      interconnect: [],
    });
    expect(usage[1]).toEqual({
      index: 1,
      vendor: 'nvidia',
      utilization: 0.1,
      memoryUsedBytes: 1024 * MIB,
      temperatureC: 31,
      health: 100,
    });
  });

  it.each([
    ['an empty output', '', 0, 0],
    ['a name with a comma', '0, GPU-1, Some, GPU, 1024, 00000000:01:00.0, 30, 5, 10', 1, 0],
    [
      'a driver error message',
      "NVIDIA-SMI has failed because it couldn't communicate with the driver.",
      0,
      1,
    ],
  ])('%s', (_name, text, devices, warnings) => {
    const parsed = parseNvidiaSmiCsv(text);
    expect(parsed.devices).toHaveLength(devices);
    expect(parsed.warnings).toHaveLength(warnings);
  });

  it('keeps what it can of garbled output and never throws', () => {
    const { devices, usage, warnings } = parseNvidiaSmiCsv(fixture('nvidia-smi-garbled.csv'));
    expect(devices.map((d) => [d.index, d.health, d.memoryBytes])).toEqual([
      [0, 100, 40960 * MIB],
      [1, 100, undefined],
      [2, 0, undefined],
    ]);
    expect(usage[1]).toEqual({ index: 1, vendor: 'nvidia', utilization: 0, memoryUsedBytes: 0, health: 100 });
    expect(warnings).toHaveLength(4); // GPU 2 error, truncated line, driver message, non-numeric index
    expect(parseNvidiaSmiCsv('a, comma , separated').devices).toEqual([]);
  });
});

describe('topoEntryLink', () => {
  it.each([
    ['X', 'self'],
    ['NV1', { kind: 'nvlink', peer: 3, bandwidthGBps: 25 }],
    ['NV12', { kind: 'nvlink', peer: 3, bandwidthGBps: 300 }],
    ['PIX', { kind: 'pcie', peer: 3, bandwidthGBps: 32 }],
    ['PXB', { kind: 'pcie', peer: 3, bandwidthGBps: 32 }],
    ['PHB', { kind: 'pcie', peer: 3, bandwidthGBps: 32 }],
    ['NODE', { kind: 'pcie', peer: 3, bandwidthGBps: 32 }],
    ['SYS', { kind: 'pcie', peer: 3, bandwidthGBps: 32 }],
    ['NVx', null],
    ['', null],
  ])('%s → %j', (entry, link) => {
    expect(topoEntryLink(entry, 3)).toEqual(link);
  });
});

describe('parseNvidiaTopology', () => {
  it('reads two 4-GPU NVLink islands and the NUMA column, skipping NIC rows and the legend', () => {
    const topo = parseNvidiaTopology(fixture('nvidia-topo-2x4.txt'));
    expect(topo.warnings).toEqual([]);
    expect([...topo.links.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...topo.numaNodes.values()]).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const gpu5 = topo.links.get(5)!;
    expect(gpu5.filter((l) => l.kind === 'nvlink').map((l) => l.peer)).toEqual([4, 6, 7]);
    expect(gpu5.filter((l) => l.kind === 'pcie').map((l) => l.peer)).toEqual([0, 1, 2, 3]);
    expect(gpu5.find((l) => l.peer === 4)!.bandwidthGBps).toBe(100);
  });

  it('reads a matrix separated by spaces instead of tabs', () => {
    const text =
      '        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      NV12    0-63    0\nGPU1    NV12     X      0-63    0\n';
    const topo = parseNvidiaTopology(text);
    expect(topo.links.get(1)).toEqual([{ kind: 'nvlink', peer: 0, bandwidthGBps: 300 }]);
    expect(topo.numaNodes.get(0)).toBe(0);
  });

  it.each([
    ['garbled fixture', fixture('nvidia-topo-garbled.txt'), [0, 1], 2],
    ['no matrix at all', 'command not found', [], 1],
    ['an empty output', '', [], 1],
  ])('keeps what it can of %s', (_name, text, gpus, warnings) => {
    const topo = parseNvidiaTopology(text);
    expect([...topo.links.keys()]).toEqual(gpus);
    expect(topo.warnings).toHaveLength(warnings);
  });

  it('gives null NUMA for a range and a truncated row', () => {
    const topo = parseNvidiaTopology(fixture('nvidia-topo-garbled.txt'));
    expect(topo.numaNodes.get(0)).toBeNull();
    expect(topo.numaNodes.get(1)).toBeNull();
    expect(topo.links.get(0)).toEqual([{ kind: 'nvlink', peer: 1, bandwidthGBps: 50 }]);
  });
});

describe('output recorded on a real H100', () => {
  it('reads the query: one 80 GB GPU, idle', () => {
    const { devices, usage, warnings } = parseNvidiaSmiCsv(fixture('nvidia-smi-h100.csv'));
    expect(warnings).toEqual([]);
    expect(devices).toEqual([
      expect.objectContaining({
        index: 0,
        vendor: 'nvidia',
        model: 'NVIDIA H100 80GB HBM3',
        uuid: 'GPU-a3bff246-18bf-3bcd-ca47-05bb657ffdb3',
        memoryBytes: 81559 * MIB,
        busId: '00000000:00:06.0',
        health: 100,
      }),
    ]);
    expect(usage).toEqual([
      { index: 0, vendor: 'nvidia', utilization: 0, memoryUsedBytes: 0, temperatureC: 35, health: 100 },
    ]);
  });

  it('reads the topology despite the underlined header: NUMA node 0, no peers', () => {
    const topo = parseNvidiaTopology(fixture('nvidia-topo-h100.txt'));
    expect(topo.warnings).toEqual([]);
    expect(topo.links.get(0)).toEqual([]);
    expect(topo.numaNodes.get(0)).toBe(0);
  });

  it('detects the single GPU end to end without warnings', async () => {
    const result = await detectNvidia(async (_command, args) =>
      args[0] === 'topo' ? fixture('nvidia-topo-h100.txt') : fixture('nvidia-smi-h100.csv'),
    );
    expect(result.warnings).toEqual([]);
    expect(result.devices.map((d) => [d.model, d.numaNode])).toEqual([['NVIDIA H100 80GB HBM3', 0]]);
  });
});

describe('detectNvidia', () => {
  const runner =
    (outputs: Record<string, string | null>): ToolRunner =>
    async (command, args) =>
      outputs[`${command} ${args[0]}`] ?? null;

  it('merges the query and the topology into two NVLink islands', async () => {
    const result = await detectNvidia(
      runner({
        [`nvidia-smi --query-gpu=index,uuid,name,memory.total,pci.bus_id,temperature.gpu,utilization.gpu,memory.used`]:
          fixture('nvidia-smi-8gpu.csv'),
        'nvidia-smi topo': fixture('nvidia-topo-2x4.txt'),
      }),
    );
    expect(result.warnings).toEqual([]);
    expect(interconnectIslands(result.devices)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(result.devices.map((d) => d.numaNode)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('finds nothing without nvidia-smi and warns when only the topology is missing', async () => {
    expect(await detectNvidia(runner({}))).toEqual({ devices: [], usage: [], warnings: [] });
    const parsed = parseNvidiaSmiCsv(fixture('nvidia-smi-8gpu.csv'));
    expect(withNvidiaTopology(parsed, null).warnings).toEqual(['nvidia-smi topo -m: no output']);
  });
});
