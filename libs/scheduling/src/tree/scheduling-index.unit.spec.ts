import { SchedulingError } from '../errors';
import type { ClusterSnapshot } from '../model';
import { domain, GiB, indexOf, node, res, threeLevel } from '../testing/fixtures';
import { SchedulingIndex } from './scheduling-index';

const errorCode = (snapshot: ClusterSnapshot) => {
  try {
    SchedulingIndex.fromSnapshot(snapshot);
    return undefined;
  } catch (error) {
    return error instanceof SchedulingError ? error.code : 'other';
  }
};

describe('SchedulingIndex', () => {
  describe('refuses inconsistent snapshots', () => {
    it.each<[string, ClusterSnapshot, string]>([
      [
        'duplicate domain',
        { domains: [domain('a', null), domain('a', null)], nodes: [] },
        'SNAPSHOT.DUPLICATE_DOMAIN',
      ],
      ['unknown parent', { domains: [domain('a', 'x')], nodes: [] }, 'SNAPSHOT.UNKNOWN_PARENT'],
      [
        'cycle',
        { domains: [domain('r', null), domain('a', 'b'), domain('b', 'a')], nodes: [] },
        'SNAPSHOT.DOMAIN_CYCLE',
      ],
      ['self parent', { domains: [domain('a', 'a')], nodes: [] }, 'SNAPSHOT.DOMAIN_CYCLE'],
      [
        'duplicate node',
        { domains: [domain('a', null)], nodes: [node('n', 'a'), node('n', 'a')] },
        'SNAPSHOT.DUPLICATE_NODE',
      ],
      [
        'node in unknown domain',
        { domains: [domain('a', null)], nodes: [node('n', 'zz')] },
        'SNAPSHOT.UNKNOWN_DOMAIN',
      ],
      [
        'unknown policy',
        { domains: [domain('a', null, { policy: 'fifo' as never })], nodes: [] },
        'SNAPSHOT.UNKNOWN_POLICY',
      ],
    ])('%s', (...[_, snapshot, code]) => {
      expect(errorCode(snapshot)).toBe(code);
    });
  });

  it('aggregates usable nodes per subtree: capacity, free, largest free per resource, counts, regions', () => {
    const index = SchedulingIndex.fromSnapshot(
      threeLevel({
        nodes: [
          node('eu-a-n1', 'eu-a', { capacity: res(16, 64, 2), allocated: res(4, 8, 1) }),
          node('eu-a-n2', 'eu-a', { capacity: res(32, 16) }),
          node('eu-b-n1', 'eu-b', { online: false, capacity: res(64, 512, 8) }),
          node('eu-b-n2', 'eu-b', { draining: true }),
        ],
      }),
    );
    expect(index.domainSummary('eu')).toEqual({
      domainId: 'eu',
      region: 'eu',
      placements: 0,
      capacity: res(48, 80, 2),
      free: res(44, 72, 1),
      maxFree: { cpuMillis: 32000, memoryBytes: 56 * GiB, accelerators: 1 },
      nodes: { total: 4, usable: 2, offline: 1, draining: 1 },
    });
    expect(index.domainSummary('eu-a')?.region).toBe('eu');
    expect(index.domainSummary('global')?.nodes).toEqual({ total: 8, usable: 6, offline: 1, draining: 1 });
    expect(index.domainSummary('nope')).toBeUndefined();
  });

  it('reserve and release keep node, sums and max-free aggregates equal to a rebuild', () => {
    const index = SchedulingIndex.fromSnapshot(threeLevel());
    const steps: [string, 'reserve' | 'release', number][] = [
      ['eu-a-n1', 'reserve', 6],
      ['eu-a-n2', 'reserve', 3],
      ['eu-b-n1', 'reserve', 8],
      ['eu-a-n1', 'release', 2],
      ['eu-b-n2', 'reserve', 7],
    ];
    for (const [nodeId, op, cores] of steps) index[op](nodeId, res(cores, cores));
    const rebuilt = SchedulingIndex.fromSnapshot(index.toSnapshot());
    for (const id of ['global', 'eu', 'us', 'eu-a', 'eu-b', 'us-a']) {
      expect(index.domainSummary(id)).toEqual(rebuilt.domainSummary(id));
    }
    expect(index.domainSummary('eu')?.maxFree.cpuMillis).toBe(5000);
    expect(index.domainSummary('global')?.maxFree.cpuMillis).toBe(8000);
    expect(index.nodeView('eu-a-n1')?.allocated).toEqual(res(4, 4));
    expect(index.domainSummary('eu')?.placements).toBe(4);
    expect(index.domainSummary('global')?.placements).toBe(4);
  });

  it.each<[string, (i: SchedulingIndex) => void, string]>([
    ['reserve on an unknown node', (i) => i.reserve('nope', res(1, 1)), 'RESERVE.UNKNOWN_NODE'],
    ['release on an unknown node', (i) => i.release('nope', res(1, 1)), 'RESERVE.UNKNOWN_NODE'],
    ['negative amounts', (i) => i.reserve('eu-a-n1', res(-1, 0)), 'RESERVE.INVALID_AMOUNT'],
    [
      'NaN amounts',
      (i) => i.release('eu-a-n1', { ...res(0, 0), accelerators: NaN }),
      'RESERVE.INVALID_AMOUNT',
    ],
  ])('refuses %s', (...[_, act, code]) => {
    const index = SchedulingIndex.fromSnapshot(threeLevel());
    expect(() => act(index)).toThrow(expect.objectContaining({ code }));
    expect(index.nodeView('eu-a-n1')?.allocated).toEqual(res(0, 0));
  });

  it.each<[string, [string, 'reserve' | 'release', number][], boolean, number, number]>([
    ['a reservation that fits', [['eu-a-n1', 'reserve', 3]], true, 3, 5],
    [
      'an overcommitting reservation is applied, free clamps at zero',
      [['eu-a-n1', 'reserve', 9]],
      false,
      9,
      0,
    ],
    [
      'releasing the overcommit restores free exactly',
      [
        ['eu-a-n1', 'reserve', 9],
        ['eu-a-n1', 'release', 4],
      ],
      true,
      5,
      3,
    ],
    ['releasing more than allocated clamps at zero', [['eu-a-n1', 'release', 2]], false, 0, 8],
  ])('mirrors the log: %s', (...[_, steps, lastResult, allocatedCores, maxFreeCores]) => {
    const index = SchedulingIndex.fromSnapshot(threeLevel());
    let result = true;
    for (const [nodeId, op, cores] of steps) result = index[op](nodeId, res(cores, 0));
    expect(result).toBe(lastResult);
    expect(index.nodeView('eu-a-n1')?.allocated.cpuMillis).toBe(allocatedCores * 1000);
    expect(index.domainSummary('eu-a')?.maxFree.cpuMillis).toBe(8000);
    expect(index.domainSummary('eu-a')?.free.cpuMillis).toBe((8 + maxFreeCores) * 1000);
    const rebuilt = SchedulingIndex.fromSnapshot(index.toSnapshot());
    expect(index.domainSummary('eu-a')).toEqual(rebuilt.domainSummary('eu-a'));
  });

  it('orders children and nodes by id whatever the snapshot order', () => {
    const a = indexOf(
      [domain('s', null)],
      ['n3', 'n1', 'n2'].map((id) => node(id, 's')),
    );
    expect(a.domainState('s')?.members.map((m) => m.id)).toEqual(['n1', 'n2', 'n3']);
  });
});
