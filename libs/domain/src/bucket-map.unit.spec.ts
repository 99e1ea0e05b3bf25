import { BucketMap } from './bucket-map';

describe('BucketMap', () => {
  it('behaves like a Map under random sets and deletes, and never changes a map it was derived from', () => {
    let seed = 42;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const reference = new Map<string, number>();
    let map = BucketMap.empty<number>();
    const snapshots: Array<[BucketMap<number>, Map<string, number>]> = [];
    for (let step = 0; step < 5000; step++) {
      const key = `workload-${random(700)}`;
      if (random(3) === 0) {
        reference.delete(key);
        map = map.delete(key);
      } else {
        reference.set(key, step);
        map = map.set(key, step);
      }
      if (step % 500 === 0) snapshots.push([map, new Map(reference)]);
    }
    expect(map.size).toBe(reference.size);
    expect(new Map(map.entries())).toEqual(reference);
    for (const [key, value] of reference) expect(map.get(key)).toBe(value);
    expect(map.get('workload-none')).toBeUndefined();
    expect(map.has('workload-none')).toBe(false);
    for (const [old, expected] of snapshots) expect(new Map(old.entries())).toEqual(expected);
  });

  it('deleting a missing key gives the same map; toRecord and values list every entry', () => {
    const map = BucketMap.of([
      ['a', 1],
      ['b', 2],
    ]);
    expect(map.delete('zzz')).toBe(map);
    expect(map.toRecord()).toEqual({ a: 1, b: 2 });
    expect([...map.values()].sort()).toEqual([1, 2]);
    expect(map.set('a', 3).size).toBe(2);
    expect(BucketMap.empty().size).toBe(0);
  });

  it.each([1, 32, 256])('with %i buckets holds every key once, its keys listed once each', (buckets) => {
    let map = BucketMap.empty<number>(buckets);
    for (let i = 0; i < 300; i++) map = map.set(`alloc-${i % 200}`, i);
    for (let i = 0; i < 50; i++) map = map.delete(`alloc-${i}`);
    const keys = [...map.keys()];
    expect(keys).toHaveLength(150);
    expect(new Set(keys).size).toBe(150);
    expect(map.size).toBe(150);
    expect(map.get('alloc-120')).toBe(120);
    expect(map.get('alloc-199')).toBe(199);
    expect(map.has('alloc-10')).toBe(false);
    expect(BucketMap.empty(buckets)).toBe(BucketMap.empty(buckets));
  });

  it('refuses a bucket count that is not a positive integer', () => {
    expect(() => BucketMap.empty(0)).toThrow(RangeError);
    expect(() => BucketMap.empty(2.5)).toThrow(RangeError);
  });
});
