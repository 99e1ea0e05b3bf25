// Fixtures under ./fixtures were written to match the documented key/value form of `cnmon info`; none could
// be checked against a real MLU here (field names such as "Bus num" are the least certain).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cnmonBlocks, detectCambricon, parseCnmonInfo } from './cambricon.detector';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const MIB = 1024 * 1024;

describe('parseCnmonInfo', () => {
  it('reads four MLU370-X8 cards', () => {
    const { devices, usage, warnings } = parseCnmonInfo(fixture('cnmon-info-mlu370-4.txt'));
    expect(warnings).toEqual([]);
    expect(devices.map((d) => [d.index, d.busId])).toEqual([
      [0, '0000:1a:00.0'],
      [1, '0000:1b:00.0'],
      [2, '0000:3d:00.0'],
      [3, '0000:3e:00.0'],
    ]);
    expect(devices[1]).toEqual({
      index: 1,
      vendor: 'cambricon',
      model: 'MLU370-X8',
      uuid: 'MLU-20001012-1916-0000-0000-000000000001',
      serial: 'SN/D21010001',
      memoryBytes: 49152 * MIB,
      busId: '0000:1b:00.0',
      numaNode: null,
      health: 100,
      interconnect: [],
    });
    expect(usage[1]).toEqual({
      index: 1,
      vendor: 'cambricon',
      utilization: 0.25,
      memoryUsedBytes: 1024 * MIB,
      temperatureC: 35,
      health: 100,
    });
  });

  it('keys section fields by section and leaves the section on dedent', () => {
    const [block] = cnmonBlocks('Card 0\nUtilization\n  MLU Average : 5 %\nProduct Name : X\n');
    expect([...block.fields]).toEqual([
      ['Utilization/MLU Average', '5 %'],
      ['Product Name', 'X'],
    ]);
  });

  it('keeps what it can of garbled output and never throws', () => {
    const { devices, usage, warnings } = parseCnmonInfo(fixture('cnmon-info-garbled.txt'));
    expect(devices.map((d) => [d.index, d.model, d.memoryBytes, d.busId])).toEqual([
      [0, 'MLU370-S4', undefined, undefined],
      [2, 'MLU370-S4', 24576 * MIB, undefined],
    ]);
    expect(usage.map((u) => u.memoryUsedBytes)).toEqual([0, 0]);
    expect(warnings).toEqual(['cnmon: card 1 has no Product Name; skipped', 'cnmon: card 0 repeated']);
  });

  it.each([
    ['', []],
    ['cnmon: command failed', ['cnmon: no Card block found']],
  ])('finds no device in %j', (text, warnings) => {
    expect(parseCnmonInfo(text)).toEqual({ devices: [], usage: [], warnings });
  });
});

describe('detectCambricon', () => {
  it('runs cnmon info, and finds nothing without it', async () => {
    const calls: string[] = [];
    const found = await detectCambricon(async (command, args) => {
      calls.push([command, ...args].join(' '));
      return fixture('cnmon-info-mlu370-4.txt');
    });
    expect(calls).toEqual(['cnmon info']);
    expect(found.devices).toHaveLength(4);
    expect(await detectCambricon(async () => null)).toEqual({ devices: [], usage: [], warnings: [] });
  });
});
