import {
  acceleratorDeviceSchema,
  deviceUsageSchema,
  freeMemoryOf,
  nodeDevicesSchema,
  type AcceleratorDevice,
  type DeviceAllocationState,
} from './device.schemas';
import { deviceFingerprint, fnv1a64 } from './fingerprint';
import { interconnectIslands } from './topology';

const GIB = 1024 ** 3;
const gpu = (index: number, extra: Partial<AcceleratorDevice> = {}): AcceleratorDevice => ({
  index,
  vendor: 'nvidia',
  model: 'NVIDIA A100-SXM4-80GB',
  memoryBytes: 80 * GIB,
  numaNode: 0,
  health: 100,
  interconnect: [],
  ...extra,
});

describe('acceleratorDeviceSchema', () => {
  it.each([
    ['a full device', gpu(0, { uuid: 'GPU-1', busId: '00000000:07:00.0', tflopsFp16: 312 }), true],
    ['unknown numbers left out', { ...gpu(1), memoryBytes: undefined }, true],
    ['numaNode null', gpu(2, { numaNode: null }), true],
    ['an unknown vendor', { ...gpu(0), vendor: 'amd' }, false],
    ['health above 100', gpu(0, { health: 101 }), false],
    ['a fractional index', gpu(0.5), false],
    ['negative memory', gpu(0, { memoryBytes: -1 }), false],
    [
      'an unknown link kind',
      gpu(0, { interconnect: [{ kind: 'ib' as 'pcie', peer: 1, bandwidthGBps: 1 }] }),
      false,
    ],
  ])('%s → valid %s', (_name, input, valid) => {
    expect(acceleratorDeviceSchema.safeParse(input).success).toBe(valid);
  });
});

describe('nodeDevicesSchema', () => {
  it.each([
    ['distinct devices', [gpu(0), gpu(1)], true],
    ['the same index of two vendors', [gpu(0), gpu(0, { vendor: 'ascend', model: '910B3' })], true],
    ['a repeated (vendor, index)', [gpu(0), gpu(0)], false],
  ])('%s → valid %s', (_name, devices, valid) => {
    const result = nodeDevicesSchema.safeParse({ devices, fingerprint: deviceFingerprint(devices) });
    expect(result.success).toBe(valid);
  });

  it('rejects a fingerprint that is not 16 hex digits', () => {
    expect(nodeDevicesSchema.safeParse({ devices: [], fingerprint: 'xyz' }).success).toBe(false);
  });
});

describe('deviceUsageSchema', () => {
  it.each([
    [{ index: 0, utilization: 0.5, memoryUsedBytes: 10, health: 100 }, true],
    [
      { index: 0, utilization: 0.5, memoryUsedBytes: 10, temperatureC: 40, health: 90, vendor: 'hygon' },
      true,
    ],
    [{ index: 0, utilization: 1.5, memoryUsedBytes: 10, health: 100 }, false],
    [{ index: 0, utilization: 0.5, memoryUsedBytes: -1, health: 100 }, false],
  ])('%j → valid %s', (input, valid) => {
    expect(deviceUsageSchema.safeParse(input).success).toBe(valid);
  });
});

describe('freeMemoryOf', () => {
  const slices = (...sizes: number[]): DeviceAllocationState => ({
    index: 0,
    wholeDevice: false,
    allocationId: null,
    slices: sizes.map((memoryBytes, i) => ({ allocationId: `a${i}`, memoryBytes })),
  });
  it.each([
    ['no allocation state', undefined, 80 * GIB],
    ['no slices', slices(), 80 * GIB],
    ['two slices', slices(10 * GIB, 20 * GIB), 50 * GIB],
    ['oversubscribed slices', slices(60 * GIB, 30 * GIB), 0],
    ['held whole', { index: 0, wholeDevice: true, allocationId: 'a-whole', slices: [] }, 0],
  ])('%s → %d bytes free', (_name, allocation, free) => {
    expect(freeMemoryOf(gpu(0), allocation)).toBe(free);
  });

  it('counts a device of unknown memory as 0 and refuses the state of another device', () => {
    expect(freeMemoryOf({ ...gpu(0), memoryBytes: undefined })).toBe(0);
    expect(() => freeMemoryOf(gpu(1), slices())).toThrow(RangeError);
  });
});

describe('deviceFingerprint', () => {
  const a = gpu(0);
  const b = gpu(1, { model: 'Ascend 910B3', vendor: 'ascend', memoryBytes: 64 * GIB });
  it.each([
    ['order', [a, b], [b, a], true],
    ['index, health, bus id and links', [a], [gpu(5, { health: 10, busId: 'x', numaNode: null })], true],
    ['model case and spaces around it', [a], [{ ...a, model: ' nvidia a100-sxm4-80gb ' }], true],
    ['a device added', [a], [a, a], false],
    ['memory', [a], [{ ...a, memoryBytes: 40 * GIB }], false],
    ['vendor', [a], [{ ...a, vendor: 'hygon' as const }], false],
  ])('ignores/notices %s → same %s', (_name, left, right, same) => {
    expect(deviceFingerprint(left) === deviceFingerprint(right)).toBe(same);
  });

  it('is 16 hex digits and matches the FNV-1a reference values', () => {
    expect(deviceFingerprint([a])).toMatch(/^[0-9a-f]{16}$/);
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
  });
});

describe('interconnectIslands', () => {
  const nv = (peer: number) => ({ kind: 'nvlink' as const, peer, bandwidthGBps: 100 });
  const pcie = (peer: number) => ({ kind: 'pcie' as const, peer, bandwidthGBps: 32 });
  it.each([
    ['no links', [gpu(0), gpu(1)], [[0], [1]]],
    ['PCIe only', [gpu(0, { interconnect: [pcie(1)] }), gpu(1, { interconnect: [pcie(0)] })], [[0], [1]]],
    ['a chain 2-0-1', [gpu(0, { interconnect: [nv(1), nv(2)] }), gpu(1), gpu(2)], [[0, 1, 2]]],
    [
      'two pairs and a link to an absent peer',
      [gpu(3, { interconnect: [nv(2)] }), gpu(2), gpu(0, { interconnect: [nv(1), nv(9)] }), gpu(1)],
      [
        [0, 1],
        [2, 3],
      ],
    ],
  ])('%s', (_name, devices, islands) => {
    expect(interconnectIslands(devices)).toEqual(islands);
  });
});
