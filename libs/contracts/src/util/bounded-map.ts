/**
 * A string-keyed map that forgets its oldest entries beyond `limit`; `set` makes a key the newest. For caches whose
 * misses have a fallback (reading the stream again), so that they cannot grow with every workload ever seen.
 */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  /** The value under `key`, if still kept. */
  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` under `key` as the newest entry, forgetting the oldest one beyond the limit. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Number of entries kept. */
  get size(): number {
    return this.entries.size;
  }
}
