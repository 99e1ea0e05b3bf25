import { compiled, domain, indexOf, node, request, res } from '../testing/fixtures';
import {
  activeFilters,
  FILTER_REASONS,
  FILTERS,
  isPolicyName,
  POLICY_NAMES,
  SCORERS,
  scorerFor,
} from './registry';

describe('plugin registry', () => {
  it('has one scorer per policy, named after it', () => {
    expect(SCORERS.map((s) => s.name).sort()).toEqual([...POLICY_NAMES].sort());
    for (const policy of POLICY_NAMES) expect(scorerFor(policy).name).toBe(policy);
    expect(new Set(POLICY_NAMES).size).toBe(SCORERS.length);
    expect([isPolicyName('least-loaded'), isPolicyName('nope')]).toEqual([true, false]);
  });

  it('names filters uniquely and gives every reason a unique dotted FILTER. code', () => {
    expect(new Set(FILTERS.map((f) => f.name)).size).toBe(FILTERS.length);
    expect(new Set(FILTER_REASONS).size).toBe(FILTER_REASONS.length);
    for (const reason of FILTER_REASONS) expect(reason).toMatch(/^FILTER\.[A-Z_]+$/);
  });

  it('every filter judges nodes or domains', () => {
    for (const f of FILTERS) expect(Boolean(f.node || f.domain)).toBe(true);
  });

  it.each<[string, Parameters<typeof request>[1], string[]]>([
    [
      'no constraints',
      {},
      ['node-online', 'node-draining', 'domain-usable', 'node-capacity', 'domain-capacity'],
    ],
    [
      'labels and a blacklist',
      { labels: [{ key: 'a', op: 'exists' }], nodeBlacklist: ['x'] },
      [
        'node-blacklist',
        'node-online',
        'node-draining',
        'domain-usable',
        'node-labels',
        'node-capacity',
        'domain-capacity',
      ],
    ],
  ])('an idle filter is skipped, and would have passed everything: %s', (...[_, constraints, running]) => {
    const index = indexOf(
      [domain('r', null), domain('s', 'r')],
      [node('n', 's', { labels: { b: '1' } }), node('x', 's')],
    );
    const req = compiled(index, request({ resources: res(1, 1) }, constraints));
    const idle = FILTERS.filter((f) => f.idle?.(req));
    expect(FILTERS.filter((f) => !idle.includes(f)).map((f) => f.name)).toEqual(running);
    for (const f of idle) {
      expect(f.node?.(index.nodeState('n')!, req)).toBeUndefined();
      expect(f.domain?.(index.domainState('s')!, req)).toBeUndefined();
    }
    const active = activeFilters(req);
    expect(active.node.length + active.domain.length).toBeGreaterThan(0);
  });
});
