import type { DeviceRequest, DeviceView } from '../model';
import { device, GiB, island } from '../testing/fixtures';
import {
  chooseDevices,
  DEVICE_BUSY,
  DEVICE_COMPUTE_UNITS,
  DEVICE_MEMORY,
  DEVICE_NONE,
  DEVICE_SLICE_UNSUPPORTED,
  DEVICE_TFLOPS,
  DEVICE_TOPOLOGY,
  DEVICE_UNHEALTHY,
  DEVICE_VENDOR_MODEL,
} from './choose-devices';
import { slotsOf } from './device-slot';

const ascend = (index: number, over: Partial<DeviceView> = {}) =>
  device(index, {
    vendor: 'ascend',
    model: 'Ascend 910B',
    memoryBytes: 64 * GiB,
    computeUnits: 0.6,
    ...over,
  });

/** Two 4-device NVLink islands (0–3 at 300 GB/s, 4–7 at 100 GB/s). */
const twoIslands = [...island(0, 4, 300), ...island(4, 4, 100)];

describe('chooseDevices: which devices, table-driven', () => {
  it.each<[string, DeviceView[], DeviceRequest, number[], string]>([
    ['one device: the lowest free index', twoIslands, { count: 1 }, [0], 'nvidia'],
    ['four in one island: the faster island', twoIslands, { count: 4 }, [0, 1, 2, 3], 'nvidia'],
    [
      'four when the fast island is partly held: the other island whole',
      [
        ...island(0, 4, 300, {}).map((d, k) => (k === 0 ? { ...d, wholeHeld: true } : d)),
        ...island(4, 4, 100),
      ],
      { count: 4 },
      [4, 5, 6, 7],
      'nvidia',
    ],
    [
      'two when one island is in use: fill it before the empty one',
      [...island(0, 4, 100).map((d, k) => (k === 0 ? { ...d, wholeHeld: true } : d)), ...island(4, 4, 100)],
      { count: 2 },
      [1, 2],
      'nvidia',
    ],
    ['five with topology any: spans islands', twoIslands, { count: 5 }, [0, 1, 2, 3, 4], 'nvidia'],
    [
      'vendor allow list',
      [device(0), ascend(1), ascend(2)],
      { count: 2, vendors: { allow: ['ascend'] } },
      [1, 2],
      'ascend',
    ],
    ['model deny list', [device(0), ascend(1)], { count: 1, models: { deny: ['A100'] } }, [1], 'ascend'],
    [
      'preferred vendor wins over index order',
      [device(0), ascend(1)],
      { count: 1, preferVendors: ['ascend', 'nvidia'] },
      [1],
      'ascend',
    ],
    [
      'healthier device among equals',
      [device(0, { health: 70 }), device(1, { health: 95 })],
      { count: 1 },
      [1],
      'nvidia',
    ],
    [
      'slice: best fit on the fuller device',
      [device(0), device(1, { slicedBytes: 60 * GiB }), device(2, { slicedBytes: 75 * GiB })],
      { count: 1, sliceMemoryBytes: 10 * GiB },
      [1],
      'nvidia',
    ],
  ])('%s', (_name, devices, request, indexes, vendor) => {
    const outcome = chooseDevices(slotsOf(devices), request);
    expect(outcome).toHaveProperty('choice');
    if (!('choice' in outcome)) return;
    expect(outcome.choice.indexes).toEqual(indexes);
    expect(outcome.choice.vendor).toBe(vendor);
  });

  it.each<[string, DeviceView[], DeviceRequest, string]>([
    ['no devices', [], { count: 1 }, DEVICE_NONE],
    ['only denied vendors', [device(0)], { count: 1, vendors: { deny: ['nvidia'] } }, DEVICE_VENDOR_MODEL],
    [
      'unknown model allowed only',
      [device(0)],
      { count: 1, models: { allow: ['H200'] } },
      DEVICE_VENDOR_MODEL,
    ],
    ['unhealthy below the default threshold', [device(0, { health: 40 })], { count: 1 }, DEVICE_UNHEALTHY],
    ['a custom threshold', [device(0, { health: 80 })], { count: 1, minHealth: 90 }, DEVICE_UNHEALTHY],
    [
      'too little memory per device',
      [device(0)],
      { count: 1, memoryPerDeviceBytes: 96 * GiB },
      DEVICE_MEMORY,
    ],
    ['too slow', [device(0)], { count: 1, tflopsFp16PerDevice: 900 }, DEVICE_TFLOPS],
    ['held whole', [device(0, { wholeHeld: true })], { count: 1 }, DEVICE_BUSY],
    ['sliced devices are not free whole', [device(0, { slicedBytes: GiB })], { count: 1 }, DEVICE_BUSY],
    [
      'slice larger than what is left',
      [device(0, { slicedBytes: 75 * GiB })],
      { count: 1, sliceMemoryBytes: 10 * GiB },
      DEVICE_BUSY,
    ],
    [
      'slice on a held device',
      [device(0, { wholeHeld: true })],
      { count: 1, sliceMemoryBytes: GiB },
      DEVICE_BUSY,
    ],
    [
      'slice on a non-CUDA device',
      [ascend(0)],
      { count: 1, sliceMemoryBytes: GiB },
      DEVICE_SLICE_UNSUPPORTED,
    ],
    ['same island impossible', twoIslands, { count: 5, topology: 'same-island' }, DEVICE_TOPOLOGY],
    ['mixed vendors do not add up', [device(0), ascend(1)], { count: 2 }, DEVICE_BUSY],
    ['compute units short', [ascend(0), ascend(1)], { count: 2, computeUnits: 1.5 }, DEVICE_COMPUTE_UNITS],
  ])('rejects: %s', (_name, devices, request, reason) => {
    const outcome = chooseDevices(slotsOf(devices), request);
    expect(outcome).toHaveProperty('rejection');
    if ('rejection' in outcome) {
      expect(outcome.rejection.reason).toBe(reason);
      expect(outcome.rejection.detail.length).toBeGreaterThan(0);
    }
  });

  it('reports the choice facts the scorers read', () => {
    const outcome = chooseDevices(slotsOf(twoIslands), { count: 2 });
    expect(outcome).toEqual({
      choice: {
        vendor: 'nvidia',
        indexes: [0, 1],
        oneIsland: true,
        bandwidthGBps: 300,
        computeUnits: 2,
        meanHealth: 100,
        grants: [
          { index: 0, vendor: 'nvidia' },
          { index: 1, vendor: 'nvidia' },
        ],
        fill: 0,
      },
    });
  });

  it('a slice counts its share of compute units and the device fill after it', () => {
    const outcome = chooseDevices(slotsOf([device(0, { slicedBytes: 40 * GiB })]), {
      count: 1,
      sliceMemoryBytes: 20 * GiB,
    });
    expect('choice' in outcome && outcome.choice).toMatchObject({
      computeUnits: 0.25,
      fill: 0.75,
      grants: [{ index: 0, vendor: 'nvidia', sliceMemoryBytes: 20 * GiB }],
    });
  });
});
