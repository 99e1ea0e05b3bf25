import type { Resources } from '../../model';
import { compiled, domain, indexOf, node, nodeIn, request, res } from '../../testing/fixtures';
import { binPackScorer } from './bin-pack';

describe('bin-pack scorer (least free left after placing)', () => {
  it.each<[string, Resources, Resources, Resources, number]>([
    ['empty node, half of it requested', res(8, 32), res(0, 0), res(4, 16), 50],
    ['exact fit', res(8, 32), res(4, 16), res(4, 16), 100],
    ['tiny request on an empty node', res(8, 32), res(0, 0), res(0, 0), 0],
    ['idle accelerators count as waste', res(8, 32, 4), res(0, 0), res(4, 16), 33.333],
    ['accelerator request on a GPU node', res(8, 32, 4), res(0, 0), res(4, 16, 4), 66.667],
  ])('%s', (...[_, capacity, allocated, resources, expected]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { capacity, allocated })]);
    const out = new Float64Array(32);
    const req = compiled(index, request({ resources }));
    binPackScorer.score([nodeIn(index, 'n1')], { request: req, scope: null }, out);
    expect(out[0]).toBeCloseTo(expected, 2);
  });

  it('prefers the fuller of two nodes', () => {
    const index = indexOf(
      [domain('s', null)],
      [node('empty', 's'), node('busy', 's', { allocated: res(6, 24) })],
    );
    const out = new Float64Array(32);
    const candidates = [nodeIn(index, 'busy'), nodeIn(index, 'empty')];
    binPackScorer.score(candidates, { request: compiled(index), scope: null }, out);
    expect(out[0]).toBeGreaterThan(out[1]);
  });
});
