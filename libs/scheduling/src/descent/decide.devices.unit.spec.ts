import { decide } from './decide';
import { DEVICE_TOPOLOGY } from '../devices/choose-devices';
import { DOMAIN_NO_FITTING_DEVICES } from '../plugins/filters/domain-devices';
import { SchedulingIndex } from '../tree/scheduling-index';
import { device, domain, GiB, island, node, request, res } from '../testing/fixtures';

const fleet = () =>
  SchedulingIndex.fromSnapshot({
    domains: [domain('site', null, { policy: 'least-loaded' })],
    nodes: [
      node('n-pcie', 'site', { capacity: res(64, 512, 8), devices: island(0, 8, 32) }),
      node('n-nvlink', 'site', {
        capacity: res(64, 512, 8),
        devices: [...island(0, 4, 300), ...island(4, 4, 300)],
      }),
      node('n-ascend', 'site', {
        capacity: res(64, 512, 2),
        devices: [0, 1].map((i) => device(i, { vendor: 'ascend', model: 'Ascend 910B', computeUnits: 0.6 })),
      }),
    ],
  });

describe('decide with a device ask', () => {
  it('given an NVLink node and a PCIe node, when 4 devices in one island are asked, then the NVLink island wins', () => {
    const decision = decide(
      fleet(),
      request({ resources: res(1, 1, 4), devices: { count: 4, topology: 'same-island' } }),
    );
    expect(decision.outcome).toBe('placed');
    if (decision.outcome !== 'placed') return;
    expect(decision.nodeId).toBe('n-nvlink');
    expect(decision.devices).toMatchObject({ vendor: 'nvidia', indexes: [0, 1, 2, 3], oneIsland: true });
    expect(decision.devices!.scores).toEqual({
      topology: 100,
      fragmentation: 0,
      health: 100,
      'vendor-preference': 100,
    });
  });

  it('given an Ascend preference, when one device is asked, then the Ascend node is chosen and the others say why not', () => {
    const decision = decide(
      fleet(),
      request({ resources: res(1, 1, 1), devices: { count: 1, vendors: { allow: ['ascend'] } } }),
    );
    expect(decision.outcome === 'placed' && decision.nodeId).toBe('n-ascend');
    const verdicts = decision.hops.at(-1)!.candidates;
    expect(verdicts.find((v) => v.id === 'n-pcie')).toMatchObject({
      accepted: false,
      reason: 'FILTER.DEVICE_VENDOR_MODEL',
    });
  });

  it('given reservations, when devices are reserved with grants, then they are not handed out twice', () => {
    const index = fleet();
    const ask = request({ resources: res(1, 1, 4), devices: { count: 4, topology: 'same-island' as const } });
    const first = decide(index, ask);
    if (first.outcome !== 'placed') throw new Error('first not placed');
    index.reserve(first.nodeId, ask.resources, first.devices!.grants);
    const second = decide(index, { ...ask, workloadId: 'w-2' });
    if (second.outcome !== 'placed') throw new Error('second not placed');
    expect(second.nodeId).toBe('n-nvlink');
    expect(second.devices!.indexes).toEqual([4, 5, 6, 7]);
    index.reserve(second.nodeId, ask.resources, second.devices!.grants);
    const third = decide(index, { ...ask, workloadId: 'w-3' });
    expect(third.outcome === 'placed' && third.nodeId).toBe('n-pcie');
    if (third.outcome === 'placed') index.reserve(third.nodeId, ask.resources, third.devices!.grants);
    const fourth = decide(index, { ...ask, workloadId: 'w-4' });
    expect(fourth.outcome === 'placed' && fourth.devices!.indexes).toEqual([4, 5, 6, 7]);
  });

  it('given every island split, when 4 in one island are asked, then it is unschedulable with the topology reason', () => {
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('site', null)],
      nodes: [
        node('n', 'site', { capacity: res(8, 64, 8), devices: [...island(0, 3, 300), ...island(3, 3, 300)] }),
      ],
    });
    const decision = decide(
      index,
      request({ resources: res(1, 1, 4), devices: { count: 4, topology: 'same-island' } }),
    );
    expect(decision.outcome).toBe('unschedulable');
    if (decision.outcome === 'unschedulable') expect(decision.reasons[DEVICE_TOPOLOGY]).toBe(1);
  });

  it('given slices, when the device is full, then the next slice is refused as busy and released memory is reused', () => {
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('site', null)],
      nodes: [
        node('n', 'site', { capacity: res(8, 64, 1), devices: [device(0, { memoryBytes: 24 * GiB })] }),
      ],
    });
    const slice = request({ resources: res(1, 1, 0), devices: { count: 1, sliceMemoryBytes: 10 * GiB } });
    const grants = [0, 1].map((i) => {
      const d = decide(index, { ...slice, workloadId: `w-${i}` });
      if (d.outcome !== 'placed') throw new Error('not placed');
      index.reserve(d.nodeId, slice.resources, d.devices!.grants);
      return d.devices!.grants;
    });
    const third = decide(index, { ...slice, workloadId: 'w-3' });
    // The site's device maxima already show no room: the subtree is skipped without visiting the node.
    expect(third.outcome === 'unschedulable' && third.reasons[DOMAIN_NO_FITTING_DEVICES]).toBe(1);
    index.release('n', slice.resources, grants[0]);
    expect(decide(index, { ...slice, workloadId: 'w-4' }).outcome).toBe('placed');
  });

  it('is deterministic for the same snapshot and workload', () => {
    const ask = request({ resources: res(1, 1, 2), devices: { count: 2 } });
    expect(JSON.stringify(decide(fleet(), ask))).toBe(JSON.stringify(decide(fleet(), ask)));
  });
});

describe('device maxima of domains', () => {
  it('given vendors in different sites, when Ascend is asked, then the NVIDIA-only site is skipped at the domain level', () => {
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('region', null), domain('gpu-site', 'region'), domain('npu-site', 'region')],
      nodes: [
        node('g1', 'gpu-site', { capacity: res(8, 64, 8), devices: island(0, 8, 300) }),
        node('n1', 'npu-site', {
          capacity: res(8, 64, 2),
          devices: [0, 1].map((i) => device(i, { vendor: 'ascend', model: 'Ascend 910B' })),
        }),
      ],
    });
    const decision = decide(
      index,
      request({ resources: res(1, 1, 2), devices: { count: 2, vendors: { allow: ['ascend'] } } }),
    );
    expect(decision.outcome === 'placed' && decision.nodeId).toBe('n1');
    const atRegion = decision.hops.find((h) => h.scope === 'region')!;
    expect(atRegion.candidates.find((c) => c.id === 'gpu-site')).toMatchObject({
      accepted: false,
      reason: DOMAIN_NO_FITTING_DEVICES,
    });
  });

  it('keeps maxima equal to a rebuild after reserves and releases', () => {
    const snapshot = {
      domains: [domain('site', null)],
      nodes: [node('a', 'site', { capacity: res(8, 64, 4), devices: island(0, 4, 300) })],
    };
    const index = SchedulingIndex.fromSnapshot(snapshot);
    index.reserve(
      'a',
      res(1, 1, 3),
      [0, 1, 2].map((i) => ({ index: i, vendor: 'nvidia' })),
    );
    expect(index.domainState('site')!.deviceMax.get('nvidia')).toMatchObject({ free: 1, slice: 80 * GiB });
    index.reserve('a', res(1, 1, 0), [{ index: 3, vendor: 'nvidia', sliceMemoryBytes: 30 * GiB }]);
    expect(index.domainState('site')!.deviceMax.get('nvidia')).toMatchObject({ free: 0, slice: 50 * GiB });
    index.release(
      'a',
      res(1, 1, 3),
      [0, 1, 2].map((i) => ({ index: i, vendor: 'nvidia' })),
    );
    expect(index.domainState('site')!.deviceMax.get('nvidia')).toMatchObject({
      free: 3,
      slice: 80 * GiB,
      healthyFree: 3,
    });
  });

  it('counts only healthy devices in the maxima unless the request lowers the threshold', () => {
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('region', null), domain('sick', 'region')],
      nodes: [
        node('s1', 'sick', {
          capacity: res(8, 64, 2),
          devices: [device(0, { health: 20 }), device(1, { health: 20 })],
        }),
      ],
    });
    const strict = decide(index, request({ resources: res(1, 1, 2), devices: { count: 2 } }));
    expect(strict.outcome === 'unschedulable' && strict.reasons[DOMAIN_NO_FITTING_DEVICES]).toBe(1);
    const lenient = decide(index, request({ resources: res(1, 1, 2), devices: { count: 2, minHealth: 10 } }));
    expect(lenient.outcome === 'placed' && lenient.nodeId).toBe('s1');
  });
});
