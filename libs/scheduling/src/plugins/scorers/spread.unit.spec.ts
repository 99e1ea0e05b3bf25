import type { Resources } from '../../model';
import { compiled, domain, indexOf, node, nodeIn, request, res } from '../../testing/fixtures';
import { leastLoadedScorer } from './least-loaded';
import { spreadScorer } from './spread';

describe('spread scorer (free fraction of the scarcest resource after placing)', () => {
  it.each<[string, Resources, Resources, Resources, number]>([
    ['empty node, small request', res(8, 32), res(0, 0), res(1, 4), 87.5],
    ['memory is the scarcest', res(8, 32), res(0, 24), res(1, 1), 21.875],
    ['exhausted accelerators put a node last', res(8, 32, 2), res(0, 0, 2), res(1, 1), 0],
    ['no capacity at all', res(0, 0), res(0, 0), res(0, 0), 0],
  ])('%s', (...[_, capacity, allocated, resources, expected]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { capacity, allocated })]);
    const out = new Float64Array(32);
    spreadScorer.score(
      [nodeIn(index, 'n1')],
      { request: compiled(index, request({ resources })), scope: null },
      out,
    );
    expect(out[0]).toBeCloseTo(expected, 2);
  });

  it('differs from least-loaded: one hot resource outweighs a cool one', () => {
    const index = indexOf(
      [domain('s', null)],
      [node('hot-mem', 's', { allocated: res(0, 28) }), node('warm', 's', { allocated: res(5, 20) })],
    );
    const candidates = [nodeIn(index, 'hot-mem'), nodeIn(index, 'warm')];
    const ctx = { request: compiled(index, request({ resources: res(0, 0) })), scope: null };
    const spread = new Float64Array(2);
    const least = new Float64Array(2);
    spreadScorer.score(candidates, ctx, spread);
    leastLoadedScorer.score(candidates, ctx, least);
    expect(spread[1]).toBeGreaterThan(spread[0]);
    expect(least[0]).toBeGreaterThan(least[1]);
  });
});
