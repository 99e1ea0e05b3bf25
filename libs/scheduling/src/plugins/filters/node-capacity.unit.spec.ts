import type { Resources } from '../../model';
import { compiled, domain, indexOf, node, nodeIn, request, res } from '../../testing/fixtures';
import {
  INSUFFICIENT_ACCELERATORS,
  INSUFFICIENT_CPU,
  INSUFFICIENT_MEMORY,
  nodeCapacityFilter,
} from './node-capacity';

describe('node-capacity filter', () => {
  it.each<[string, Resources, Resources, Resources, string | undefined, string?]>([
    ['fits with room', res(8, 32), res(2, 8), res(4, 8), undefined],
    ['fits exactly', res(8, 32, 2), res(4, 16, 1), res(4, 16, 1), undefined],
    ['zero request on a full node', res(8, 32), res(8, 32), res(0, 0), undefined],
    ['cpu short', res(8, 32), res(6, 0), res(4, 1), INSUFFICIENT_CPU, 'cpu: need 4000m, free 2000m'],
    ['memory short', res(8, 32), res(0, 30), res(1, 4), INSUFFICIENT_MEMORY, 'memory: need 4GiB, free 2GiB'],
    [
      'accelerators short',
      res(8, 32, 4),
      res(0, 0, 3),
      res(1, 1, 2),
      INSUFFICIENT_ACCELERATORS,
      'need 2, free 1',
    ],
    [
      'no accelerators at all',
      res(8, 32),
      res(0, 0),
      res(1, 1, 1),
      INSUFFICIENT_ACCELERATORS,
      'need 1, free 0',
    ],
    ['cpu reported first when all are short', res(1, 1), res(0, 0), res(2, 2, 1), INSUFFICIENT_CPU],
    [
      'overcommitted node counts as zero free',
      res(8, 32),
      res(10, 0),
      res(1, 1),
      INSUFFICIENT_CPU,
      'free 0m',
    ],
  ])('%s', (...[_, capacity, allocated, resources, expected, detail]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { capacity, allocated })]);
    const rejection = nodeCapacityFilter.node(nodeIn(index, 'n1'), compiled(index, request({ resources })));
    expect(rejection?.reason).toBe(expected);
    if (detail) expect(rejection?.detail).toContain(detail);
  });
});
