import { MaxTree } from './max-tree';

describe('MaxTree', () => {
  it.each<[string, number[], [number, number][], number]>([
    ['empty', [], [], 0],
    ['one value', [5], [], 5],
    ['max of many', [3, 9, 2, 7, 1], [], 9],
    ['lowering the max reveals the next', [3, 9, 2, 7, 1], [[1, 0]], 7],
    ['raising another value', [3, 9, 2, 7, 1], [[4, 12]], 12],
    [
      'several updates',
      [3, 9, 2, 7, 1],
      [
        [1, 0],
        [3, 0],
        [0, 4],
      ],
      4,
    ],
    ['single slot updated', [5], [[0, 2]], 2],
  ])('%s', (...[_, values, updates, expected]) => {
    const tree = new MaxTree(values);
    for (const [i, v] of updates) tree.set(i, v);
    expect(tree.max()).toBe(expected);
  });

  it('agrees with a plain maximum under random updates', () => {
    const values = Array.from({ length: 37 }, (_, i) => (i * 7919) % 101);
    const tree = new MaxTree(values);
    for (let step = 0; step < 500; step++) {
      const i = (step * 31) % values.length;
      values[i] = (step * 613) % 97;
      expect(tree.set(i, values[i])).toBe(Math.max(...values));
    }
  });
});
