import type { NodeView, Resources } from '../../model';
import { compiled, domain, domainIn, indexOf, node, request, res } from '../../testing/fixtures';
import {
  DOMAIN_INSUFFICIENT_ACCELERATORS,
  DOMAIN_INSUFFICIENT_CPU,
  DOMAIN_INSUFFICIENT_MEMORY,
  domainCapacityFilter,
} from './domain-capacity';

describe('domain-capacity filter (largest free amount on one usable node)', () => {
  const sized = (capacity: Resources, over: Partial<NodeView> = {}) => ({ capacity, ...over });

  it.each<[string, Partial<NodeView>[], Resources, string | undefined, string?]>([
    ['one node fits', [sized(res(4, 8)), sized(res(16, 64))], res(12, 32), undefined],
    [
      'the sum fits but no single node does',
      [sized(res(8, 32)), sized(res(8, 32))],
      res(12, 8),
      DOMAIN_INSUFFICIENT_CPU,
      'cpu: need 12000m, largest free on one node 8000m',
    ],
    [
      'memory short everywhere',
      [sized(res(64, 16))],
      res(1, 32),
      DOMAIN_INSUFFICIENT_MEMORY,
      'largest free on one node 16GiB',
    ],
    [
      'accelerators short',
      [sized(res(8, 32, 2), { allocated: res(0, 0, 1) })],
      res(1, 1, 2),
      DOMAIN_INSUFFICIENT_ACCELERATORS,
    ],
    [
      'a big offline node does not count',
      [sized(res(8, 32)), sized(res(64, 256), { online: false })],
      res(16, 1),
      DOMAIN_INSUFFICIENT_CPU,
    ],
    [
      'a big draining node does not count',
      [sized(res(64, 256), { draining: true })],
      res(16, 1),
      DOMAIN_INSUFFICIENT_CPU,
    ],
    [
      'per-resource maxima may come from different nodes (passes; the descent finds out)',
      [sized(res(16, 8)), sized(res(4, 64))],
      res(12, 32),
      undefined,
    ],
  ])('%s', (...[_, nodes, resources, expected, detail]) => {
    const index = indexOf(
      [domain('region', null), domain('site', 'region')],
      nodes.map((over, i) => node(`n${i}`, 'site', over)),
    );
    for (const id of ['region', 'site']) {
      const rejection = domainCapacityFilter.domain(
        domainIn(index, id),
        compiled(index, request({ resources })),
      );
      expect(rejection?.reason).toBe(expected);
      if (detail) expect(rejection?.detail).toContain(detail);
    }
  });
});
