export interface ExpiringMapOptions<K> {
  /** Most entries kept; when full, the oldest make room. 0 keeps nothing. */
  readonly maxEntries: number;
  /** With `maxWeight`: what an entry weighs (a token's characters); all entries together stay within `maxWeight`. */
  readonly weigh?: ((key: K) => number) | undefined;
  readonly maxWeight?: number | undefined;
}

interface Entry<V> {
  readonly value: V;
  /** Time (on the caller's clock) from which the entry no longer answers. */
  readonly until: number;
}

/**
 * A bounded map whose entries answer until a time each is given, on whatever
 * clock the caller reads (`get` and `set` take the time). When full, the
 * oldest entries make room. What the verified-token cache, the API key cache
 * and the gateway's key-id memo keep their entries in.
 */
export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #maxEntries: number;
  readonly #weigh: ((key: K) => number) | undefined;
  readonly #maxWeight: number;
  #weight = 0;

  constructor(options: ExpiringMapOptions<K>) {
    this.#maxEntries = options.maxEntries;
    this.#weigh = options.weigh;
    this.#maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key` while `now` is before its time; an expired entry is dropped. */
  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.value;
    this.delete(key);
    return undefined;
  }

  /** Keeps `value` for `key` until `until` (as the newest entry); one heavier than the whole budget is not kept. */
  set(key: K, value: V, until: number): void {
    const weight = this.#weigh?.(key) ?? 0;
    if (this.#maxEntries <= 0 || weight > this.#maxWeight) return;
    this.delete(key);
    while (this.#entries.size >= this.#maxEntries || this.#weight + weight > this.#maxWeight) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.#entries.set(key, { value, until });
    this.#weight += weight;
  }

  delete(key: K): void {
    if (this.#entries.delete(key)) this.#weight -= this.#weigh?.(key) ?? 0;
  }

  /** Drops every entry whose value `matches` (expired or not). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
