import type { Resources } from './model';
import {
  addResources,
  firstShortfall,
  fitsIn,
  formatAmount,
  freeOf,
  isValidAmount,
  subtractResources,
  ZERO_RESOURCES,
} from './resources';
import { res } from './testing/fixtures';

describe('resources', () => {
  it.each<[string, Resources, Resources, boolean, string | undefined]>([
    ['nothing in nothing', ZERO_RESOURCES, ZERO_RESOURCES, true, undefined],
    ['exact', res(2, 4, 1), res(2, 4, 1), true, undefined],
    ['cpu over', res(3, 4), res(2, 8), false, 'cpuMillis'],
    ['memory over', res(1, 9), res(2, 8), false, 'memoryBytes'],
    ['accelerators over', res(1, 1, 2), res(2, 8, 1), false, 'accelerators'],
  ])('fitsIn / firstShortfall: %s', (...[_, need, free, fits, short]) => {
    expect(fitsIn(need, free)).toBe(fits);
    expect(firstShortfall(need, free)).toBe(short);
  });

  it('adds, subtracts and clamps free amounts at zero', () => {
    expect(addResources(res(1, 2, 3), res(4, 5, 6))).toEqual(res(5, 7, 9));
    expect(subtractResources(res(1, 2), res(2, 1))).toEqual(res(-1, 1));
    expect(freeOf(res(8, 32, 2), res(10, 8, 1))).toEqual(res(0, 24, 1));
  });

  it.each<[Resources, boolean]>([
    [res(0, 0), true],
    [res(-1, 0), false],
    [{ cpuMillis: Infinity, memoryBytes: 0, accelerators: 0 }, false],
    [{ cpuMillis: 1, memoryBytes: NaN, accelerators: 0 }, false],
  ])('isValidAmount(%o) is %s', (amount, valid) => {
    expect(isValidAmount(amount)).toBe(valid);
  });

  it.each<[Parameters<typeof formatAmount>[0], number, string]>([
    ['cpuMillis', 2500, '2500m'],
    ['memoryBytes', 1.5 * 2 ** 30, '1.5GiB'],
    ['memoryBytes', 2 ** 30 / 3, '0.33GiB'],
    ['accelerators', 4, '4'],
  ])('formatAmount(%s, %d) = %s', (key, value, text) => {
    expect(formatAmount(key, value)).toBe(text);
  });
});
