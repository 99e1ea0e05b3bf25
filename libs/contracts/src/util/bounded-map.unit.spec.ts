import { BoundedMap } from './bounded-map';

describe('BoundedMap', () => {
  it('forgets the oldest entries beyond its limit; setting a key again makes it the newest', () => {
    const map = new BoundedMap<number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.set('a', 10); // a is now the newest
    map.set('d', 4); // b, the oldest, goes
    expect([map.get('a'), map.get('b'), map.get('c'), map.get('d')]).toEqual([10, undefined, 3, 4]);
    expect(map.size).toBe(3);
  });
});
