import type { Resources } from '../../model';
import { compiled, domain, indexOf, node, nodeIn, res } from '../../testing/fixtures';
import { leastLoadedScorer } from './least-loaded';

describe('least-loaded scorer (mean free fraction over the resources a node has)', () => {
  it.each<[string, Resources, Resources, number]>([
    ['empty node', res(8, 32), res(0, 0), 100],
    ['half used', res(8, 32), res(4, 16), 50],
    ['cpu full, memory empty', res(8, 32), res(8, 0), 50],
    ['accelerators count when present', res(8, 32, 4), res(0, 0, 4), 66.667],
    ['full node', res(8, 32), res(8, 32), 0],
    ['no capacity at all', res(0, 0), res(0, 0), 0],
  ])('%s', (...[_, capacity, allocated, expected]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { capacity, allocated })]);
    const out = new Float64Array(32);
    leastLoadedScorer.score([nodeIn(index, 'n1')], { request: compiled(index), scope: null }, out);
    expect(out[0]).toBeCloseTo(expected, 2);
  });
});
