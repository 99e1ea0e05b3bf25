import type { AcceleratorDevice } from '@hcn/contracts';
import { deviceViewsFrom } from './device-views';

const GiB = 2 ** 30;
const linked = (
  index: number,
  peers: number[],
  bandwidthGBps: number,
  over: Partial<AcceleratorDevice> = {},
) =>
  ({
    index,
    vendor: 'nvidia',
    model: 'NVIDIA A100-SXM4-80GB',
    memoryBytes: 80 * GiB,
    numaNode: 0,
    health: 100,
    interconnect: peers.map((peer) => ({ kind: 'nvlink', peer, bandwidthGBps })),
    ...over,
  }) as AcceleratorDevice;

describe('deviceViewsFrom', () => {
  it('groups islands per vendor, takes the slowest link inside each, and prices devices by the rate table', () => {
    const devices = [
      linked(0, [1], 300),
      linked(1, [0], 100),
      linked(2, [], 0),
      linked(0, [1], 56, { vendor: 'ascend', model: 'Ascend 910B', memoryBytes: 64 * GiB }),
      linked(1, [0], 56, { vendor: 'ascend', model: 'Ascend 910B', memoryBytes: 64 * GiB }),
      linked(3, [], 0, { model: 'Tesla T4', memoryBytes: 16 * GiB }),
    ];
    const held = new Map([['nvidia/1', { whole: false, slicedBytes: 10 * GiB }]]);
    const views = deviceViewsFrom(devices, held);
    expect(
      views.map((v) => [v.vendor, v.index, v.island, v.islandBandwidthGBps, v.computeUnits, v.slicedBytes]),
    ).toEqual([
      ['ascend', 0, 0, 56, 0.6, 0],
      ['nvidia', 0, 0, 100, 1, 0],
      ['ascend', 1, 0, 56, 0.6, 0],
      ['nvidia', 1, 0, 100, 1, 10 * GiB],
      ['nvidia', 2, 2, 0, 1, 0],
      ['nvidia', 3, 3, 0, 0, 0],
    ]);
  });
});
