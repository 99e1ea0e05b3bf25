// Fixtures under ./fixtures were written to match the documented `npu-smi info` table (23.0 for 910B, the
// older 910A layout); none could be checked against a real NPU here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectAscend, parseNpuSmiInfo } from './ascend.detector';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const MIB = 1024 * 1024;

describe('parseNpuSmiInfo', () => {
  it('reads a 910B box of 8 NPUs and stops at the process table', () => {
    const { devices, usage, warnings } = parseNpuSmiInfo(fixture('npu-smi-910b-8npu.txt'));
    expect(warnings).toEqual([]);
    expect(devices.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(devices[1]).toEqual({
      index: 1,
      vendor: 'ascend',
      model: 'Ascend 910B3',
      memoryBytes: 65536 * MIB,
      busId: '0000:C2:00.0',
      numaNode: null,
      health: 100,
      interconnect: [],
    });
    expect(devices[5].health).toBe(60);
    expect(usage[1]).toEqual({
      index: 1,
      vendor: 'ascend',
      utilization: 0.1,
      memoryUsedBytes: 3162 * MIB,
      temperatureC: 36,
      health: 100,
    });
  });

  it.each([
    ['OK', 100],
    ['Warning', 60],
    ['Alarm', 30],
    ['Critical', 0],
    ['Unknown', 50],
  ])('maps health %s to %d', (word, score) => {
    const text = `| 0     910B | ${word} | 90.0  40 |\n| 0 | 0000:C1:00.0 | 5  0 / 0  100 / 65536 |\n`;
    expect(parseNpuSmiInfo(text).devices[0].health).toBe(score);
  });

  it.each([
    [
      'a Device column',
      '| 4     310P3 | OK | NA  40 |\n| 0     9 | 0000:01:00.0 | 0  1467 / 44280 |',
      9,
      44280,
    ],
    ['no HBM column', '| 2     910A | OK | 68  36 |\n| 0 | 0000:C1:00.0 | 0  2621 / 15307 |', 2, 15307],
  ])('reads %s', (_name, text, index, memoryMiB) => {
    const [device] = parseNpuSmiInfo(text).devices;
    expect([device.index, device.memoryBytes]).toEqual([index, memoryMiB * MIB]);
  });

  it('keeps what it can of garbled output and never throws', () => {
    const { devices, usage, warnings } = parseNpuSmiInfo(fixture('npu-smi-garbled.txt'));
    expect(devices.map((d) => [d.index, d.health, d.memoryBytes])).toEqual([
      [0, 100, 32255 * MIB],
      [1, 50, undefined],
      [2, 100, 4 * MIB],
    ]);
    expect(usage[1]).toEqual({ index: 1, vendor: 'ascend', utilization: 0, memoryUsedBytes: 0, health: 50 });
    expect(warnings).toHaveLength(3); // unknown health, truncated row, unreadable row
  });

  it.each([[''], ['dcmi module initialize failed. ret is -8005'], ['| 0 | 0000:C1:00.0 | 0 1 / 2 |']])(
    'finds no device in %j',
    (text) => {
      expect(parseNpuSmiInfo(text).devices).toEqual([]);
    },
  );
});

describe('detectAscend', () => {
  it('runs npu-smi info, and finds nothing without it', async () => {
    const calls: string[] = [];
    const found = await detectAscend(async (command, args) => {
      calls.push([command, ...args].join(' '));
      return fixture('npu-smi-910b-8npu.txt');
    });
    expect(calls).toEqual(['npu-smi info']);
    expect(found.devices).toHaveLength(8);
    expect(await detectAscend(async () => null)).toEqual({ devices: [], usage: [], warnings: [] });
  });
});
