/** Buckets of a BucketMap: an update copies one bucket and this many slots, whatever the map's size. */
const BUCKETS = 256;

function bucketOf(key: string): number {
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

/**
 * An immutable string-keyed map for aggregate states that grow large (a namespace's quota holdings): `set` and
 * `delete` return a new map that shares all buckets but the one they change, so folding n events costs O(n·n/256)
 * instead of copying every entry per event. Iteration is in bucket order, then insertion order within a bucket.
 */
export class BucketMap<V> {
  private static readonly EMPTY = new BucketMap<never>(new Array(BUCKETS).fill(undefined), 0);

  private constructor(
    private readonly buckets: ReadonlyArray<ReadonlyMap<string, V> | undefined>,
    /** Number of entries. */
    readonly size: number,
  ) {}

  /** The empty map. */
  static empty<V>(): BucketMap<V> {
    return BucketMap.EMPTY as BucketMap<V>;
  }

  /** A map of the given entries. */
  static of<V>(entries: Iterable<readonly [string, V]>): BucketMap<V> {
    let map = BucketMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  /** The value under `key`, if any. */
  get(key: string): V | undefined {
    return this.buckets[bucketOf(key)]?.get(key);
  }

  /** True when `key` has a value. */
  has(key: string): boolean {
    return this.buckets[bucketOf(key)]?.has(key) ?? false;
  }

  /** A map with `key` set to `value`. */
  set(key: string, value: V): BucketMap<V> {
    const index = bucketOf(key);
    const bucket = new Map(this.buckets[index]);
    const added = bucket.has(key) ? 0 : 1;
    bucket.set(key, value);
    return this.with(index, bucket, this.size + added);
  }

  /** A map without `key` (this map when it has none). */
  delete(key: string): BucketMap<V> {
    const index = bucketOf(key);
    if (!this.buckets[index]?.has(key)) return this;
    const bucket = new Map(this.buckets[index]);
    bucket.delete(key);
    return this.with(index, bucket.size > 0 ? bucket : undefined, this.size - 1);
  }

  /** Every entry. */
  *entries(): IterableIterator<[string, V]> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.entries();
  }

  /** Every value. */
  *values(): IterableIterator<V> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.values();
  }

  /** The entries as a plain object (for JSON answers). */
  toRecord(): Record<string, V> {
    return Object.fromEntries(this.entries());
  }

  private with(index: number, bucket: ReadonlyMap<string, V> | undefined, size: number): BucketMap<V> {
    const buckets = this.buckets.slice();
    buckets[index] = bucket;
    return new BucketMap(buckets, size);
  }
}
