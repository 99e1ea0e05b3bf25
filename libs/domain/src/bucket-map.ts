/** Default buckets of a BucketMap: an update copies one bucket and this many slots, whatever the map's size. */
const BUCKETS = 256;

/** The empty map of each bucket count (maps are immutable, so one is enough). */
const EMPTIES = new Map<number, BucketMap<never>>();

function hashOf(key: string): number {
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * An immutable string-keyed map for aggregate states that grow large (a namespace's quota holdings): `set` and
 * `delete` return a new map that shares all buckets but the one they change, so folding n events costs O(n·n/256)
 * instead of copying every entry per event. Iteration is in bucket order, then insertion order within a bucket.
 */
export class BucketMap<V> {
  private constructor(
    private readonly buckets: ReadonlyArray<ReadonlyMap<string, V> | undefined>,
    /** Number of entries. */
    readonly size: number,
  ) {}

  /**
   * The empty map. `buckets` trades the cost of an update (one bucket of size/buckets entries plus the bucket
   * array) against its memory: 256 suits thousands of entries, a few dozen suit maps of tens to hundreds.
   */
  static empty<V>(buckets = BUCKETS): BucketMap<V> {
    let empty = EMPTIES.get(buckets);
    if (!empty) {
      if (!Number.isInteger(buckets) || buckets < 1) throw new RangeError(`bucket count ${buckets}`);
      empty = new BucketMap<never>(new Array<undefined>(buckets).fill(undefined), 0);
      EMPTIES.set(buckets, empty);
    }
    return empty as BucketMap<V>;
  }

  /** A map of the given entries. */
  static of<V>(entries: Iterable<readonly [string, V]>): BucketMap<V> {
    let map = BucketMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  /** The value under `key`, if any. */
  get(key: string): V | undefined {
    return this.buckets[this.bucketOf(key)]?.get(key);
  }

  /** True when `key` has a value. */
  has(key: string): boolean {
    return this.buckets[this.bucketOf(key)]?.has(key) ?? false;
  }

  /** A map with `key` set to `value`. */
  set(key: string, value: V): BucketMap<V> {
    const index = this.bucketOf(key);
    const bucket = new Map(this.buckets[index]);
    const added = bucket.has(key) ? 0 : 1;
    bucket.set(key, value);
    return this.with(index, bucket, this.size + added);
  }

  /** A map without `key` (this map when it has none). */
  delete(key: string): BucketMap<V> {
    const index = this.bucketOf(key);
    if (!this.buckets[index]?.has(key)) return this;
    const bucket = new Map(this.buckets[index]);
    bucket.delete(key);
    return this.with(index, bucket.size > 0 ? bucket : undefined, this.size - 1);
  }

  /** Every entry. */
  *entries(): IterableIterator<[string, V]> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.entries();
  }

  /** Every key. */
  *keys(): IterableIterator<string> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.keys();
  }

  /** Every value. */
  *values(): IterableIterator<V> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.values();
  }

  /** The entries as a plain object (for JSON answers). */
  toRecord(): Record<string, V> {
    return Object.fromEntries(this.entries());
  }

  private bucketOf(key: string): number {
    return hashOf(key) % this.buckets.length;
  }

  private with(index: number, bucket: ReadonlyMap<string, V> | undefined, size: number): BucketMap<V> {
    const buckets = this.buckets.slice();
    buckets[index] = bucket;
    return new BucketMap(buckets, size);
  }
}
