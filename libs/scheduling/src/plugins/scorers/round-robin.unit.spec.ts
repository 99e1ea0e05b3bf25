import { compiled, domain, domainIn, indexOf, node, nodeIn } from '../../testing/fixtures';
import { roundRobinScorer } from './round-robin';

describe('round-robin scorer (the scope placements counter modulo the eligible list in id order)', () => {
  it.each<[number, number[]]>([
    [0, [100, 75, 50, 25]],
    [1, [25, 100, 75, 50]],
    [6, [50, 25, 100, 75]],
    [7, [75, 50, 25, 100]],
  ])('placements %i', (placements, expected) => {
    const index = indexOf(
      [domain('s', null, { policy: 'round-robin', placements })],
      ['a', 'b', 'c', 'd'].map((id) => node(id, 's')),
    );
    const out = new Float64Array(32);
    const candidates = ['a', 'b', 'c', 'd'].map((id) => nodeIn(index, id));
    roundRobinScorer.score(candidates, { request: compiled(index), scope: domainIn(index, 's') }, out);
    expect([...out.subarray(0, 4)]).toEqual(expected);
  });

  it('gives a single candidate 100 and copes with the virtual root (no counter)', () => {
    const index = indexOf([domain('s', null)], [node('a', 's')]);
    const out = new Float64Array(32);
    roundRobinScorer.score([nodeIn(index, 'a')], { request: compiled(index), scope: null }, out);
    expect(out[0]).toBe(100);
  });
});
