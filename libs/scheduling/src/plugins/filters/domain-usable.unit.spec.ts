import type { NodeView } from '../../model';
import { domain, domainIn, indexOf, node } from '../../testing/fixtures';
import { DOMAIN_NO_USABLE_NODE, domainUsableFilter } from './domain-usable';

describe('domain-usable filter', () => {
  it.each<[string, Partial<NodeView>[], string | undefined, string?]>([
    ['one usable node', [{}, { online: false }], undefined],
    [
      'all offline',
      [{ online: false }, { online: false }],
      DOMAIN_NO_USABLE_NODE,
      '2 nodes: 2 offline, 0 draining',
    ],
    [
      'offline and draining',
      [{ online: false }, { draining: true }],
      DOMAIN_NO_USABLE_NODE,
      '1 offline, 1 draining',
    ],
    ['no nodes at all', [], DOMAIN_NO_USABLE_NODE, '0 nodes'],
  ])('%s', (...[_, nodes, expected, detail]) => {
    const index = indexOf(
      [domain('region', null), domain('site', 'region')],
      nodes.map((over, i) => node(`n${i}`, 'site', over)),
    );
    for (const id of ['region', 'site']) {
      const rejection = domainUsableFilter.domain(domainIn(index, id));
      expect(rejection?.reason).toBe(expected);
      if (detail) expect(rejection?.detail).toContain(detail);
    }
  });
});
