// Fixtures under ./fixtures were written to match rocm-smi's documented `--json` form (which hy-smi shares);
// none could be checked against a real DCU here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectHygon, HYGON_SMI_ARGS, parseRocmSmiJson } from './hygon.detector';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('parseRocmSmiJson', () => {
  it('reads four Z100 cards', () => {
    const { devices, usage, warnings } = parseRocmSmiJson(fixture('rocm-smi-dcu-4.txt'));
    expect(warnings).toEqual([]);
    expect(devices.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    expect(devices[0]).toEqual({
      index: 0,
      vendor: 'hygon',
      model: 'DCU Z100',
      memoryBytes: 34342961152,
      busId: '0000:04:00.0',
      numaNode: null,
      health: 100,
      interconnect: [],
    });
    expect(usage.map((u) => u.utilization)).toEqual([0.12, 0, 0, 1]);
    expect(usage[0].memoryUsedBytes).toBe(1073741824);
  });

  it('keeps what it can of garbled output, skipping AMD cards, and never throws', () => {
    const { devices, warnings } = parseRocmSmiJson(fixture('rocm-smi-garbled.txt'));
    expect(devices.map((d) => [d.index, d.model, d.memoryBytes])).toEqual([
      [0, 'DCU Z100', undefined],
      [3, 'Hygon DCU', undefined],
    ]);
    expect(warnings).toEqual([
      'rocm-smi: card1 is not an object',
      expect.stringMatching(/card2: vendor .* not Hygon/),
    ]);
  });

  it.each([
    ['truncated JSON', fixture('rocm-smi-truncated.txt'), 'rocm-smi: output is not JSON'],
    ['no output', '', 'rocm-smi: output is not JSON'],
    ['a JSON array', '[1, 2]', 'rocm-smi: output is not a JSON object'],
    ['JSON null', 'null', 'rocm-smi: output is not a JSON object'],
  ])('%s → no devices and a warning', (_name, text, warning) => {
    expect(parseRocmSmiJson(text)).toEqual({ devices: [], usage: [], warnings: [warning] });
  });

  it('reads the newer capitalisation of the keys', () => {
    const text = '{"card1": {"Card Series": "K100_AI", "VRAM Total Memory (B)": 68702699520}}';
    expect(parseRocmSmiJson(text).devices[0]).toMatchObject({
      index: 1,
      model: 'K100_AI',
      memoryBytes: 68702699520,
    });
  });
});

describe('detectHygon', () => {
  it.each([
    ['hy-smi', ['hy-smi']],
    ['rocm-smi', ['hy-smi', 'rocm-smi']],
    ['neither', ['hy-smi', 'rocm-smi']],
  ])('with %s installed runs %j', async (installed, expected) => {
    const calls: string[] = [];
    const found = await detectHygon(async (command, args) => {
      calls.push(command);
      expect(args).toEqual(HYGON_SMI_ARGS);
      return command === installed ? fixture('rocm-smi-dcu-4.txt') : null;
    });
    expect(calls).toEqual(expected);
    expect(found.devices).toHaveLength(installed === 'neither' ? 0 : 4);
  });
});
