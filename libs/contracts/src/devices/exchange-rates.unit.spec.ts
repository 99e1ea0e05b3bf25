import { computeUnits, DEFAULT_EXCHANGE_RATES, exchangeRatesSchema, modelKey } from './exchange-rates';

const GIB = 1024 ** 3;

describe('modelKey', () => {
  it.each([
    ['NVIDIA A100-SXM4-80GB', { family: 'A100', memoryGiB: 80 }],
    ['NVIDIA A800 80GB PCIe', { family: 'A800', memoryGiB: 80 }],
    ['Tesla V100-SXM2-32GB', { family: 'V100', memoryGiB: 32 }],
    ['Ascend 910B', { family: '910B' }],
    ['Ascend910B3', { family: '910B3' }],
    ['DCU Z100', { family: 'Z100' }],
    ['MLU370-X8', { family: 'MLU370' }],
    ['a100_80gib', { family: 'A100', memoryGiB: 80 }],
    ['NVIDIA', null],
    ['', null],
  ])('%s → %j', (model, key) => {
    expect(modelKey(model)).toEqual(key);
  });
});

describe('computeUnits with the default table', () => {
  it.each([
    ['NVIDIA A100-SXM4-80GB', undefined, 1.0],
    ['NVIDIA A100 80GB PCIe', undefined, 1.0],
    ['A100-SXM4', 80 * GIB, 1.0],
    ['NVIDIA A100-SXM4-40GB', undefined, null],
    ['NVIDIA A100-PCIE', 40 * GIB, null],
    ['NVIDIA A800-SXM4-80GB', undefined, 0.7],
    ['910B', 64 * GIB, 0.6],
    ['910B3', 64 * GIB, 0.6],
    ['Ascend 910A', 32 * GIB, 0.5],
    ['910A', undefined, 0.5],
    ['DCU Z100', undefined, 0.4],
    ['Z100', 32 * GIB, 0.4],
    ['MLU370-X8', 48 * GIB, 0.35],
    ['mlu370-s4', undefined, 0.35],
    ['NVIDIA RTX A1000', undefined, null],
    ['NVIDIA H100 80GB HBM3', undefined, 3.2],
    ['NVIDIA B200', undefined, null],
    ['Ascend 310P3', undefined, null],
  ])('%s (%s bytes) → %s', (model, memoryBytes, units) => {
    expect(computeUnits({ model, memoryBytes })).toBe(units);
  });
});

describe('computeUnits with a configured table', () => {
  const rates = exchangeRatesSchema.parse({
    ...DEFAULT_EXCHANGE_RATES,
    'H100-80G': 2.5,
    '910B3': 0.65,
    A100: 0.8,
  });
  it.each([
    ['NVIDIA H100 80GB HBM3', 2.5],
    ['910B3', 0.65],
    ['910B2', 0.6],
    ['NVIDIA A100-SXM4-80GB', 1.0],
    ['NVIDIA A100-SXM4-40GB', 0.8],
  ])('%s → %s', (model, units) => {
    expect(computeUnits({ model }, rates)).toBe(units);
  });

  it.each([[{ A100: -1 }], [{ '': 1 }], [{ A100: Infinity }]])('rejects the table %j', (table) => {
    expect(exchangeRatesSchema.safeParse(table).success).toBe(false);
  });
});
