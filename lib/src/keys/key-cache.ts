import type { KeyRecord } from '../ports/key-store.js';

/** A key as read for one presented secret: what a later call with the same secret needs, worked out once. */
export interface CachedKey<P> {
  readonly record: KeyRecord;
  /** The caller the key makes. */
  readonly principal: P;
  /** Whether the secret is the key's current one (else its previous one, valid until `record.previousValidUntil`). */
  readonly current: boolean;
}

interface Entry<P> extends CachedKey<P> {
  /** Epoch ms after which the entry no longer answers. */
  readonly until: number;
}

/**
 * Keys read by the digest of a presented secret, kept briefly so repeated
 * calls skip the database. Only found keys enter (a key created on another
 * instance works at once); an entry answers for `ttlMs`, which bounds how
 * long a revocation this instance was not told of goes unseen. When full, the
 * oldest entries make room.
 */
export class KeyCache<P> {
  readonly #entries = new Map<string, Entry<P>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries: number) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  get(digest: string, nowMs: number): CachedKey<P> | undefined {
    const entry = this.#entries.get(digest);
    if (entry === undefined) return undefined;
    if (nowMs < entry.until) return entry;
    this.#entries.delete(digest);
    return undefined;
  }

  set(digest: string, key: CachedKey<P>, nowMs: number): void {
    if (this.#maxEntries <= 0 || this.#ttlMs <= 0) return;
    this.#entries.delete(digest);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    this.#entries.set(digest, { ...key, until: nowMs + this.#ttlMs });
  }

  /** Drops every entry of a workspace's keys (one of them changed). */
  forgetWorkspace(workspace: string): void {
    for (const [digest, entry] of this.#entries) if (entry.record.workspace === workspace) this.#entries.delete(digest);
  }

  clear(): void {
    this.#entries.clear();
  }
}
