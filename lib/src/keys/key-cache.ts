import { ExpiringMap } from '../expiring-map.js';
import type { KeyRecord } from '../ports/key-store.js';

/** A key as read for one presented secret: what a later call with the same secret needs, worked out once. */
export interface CachedKey<P> {
  readonly record: KeyRecord;
  /** The caller the key makes. */
  readonly principal: P;
  /** Whether the secret is the key's current one (else its previous one, valid until `record.previousValidUntil`). */
  readonly current: boolean;
}

/**
 * Keys read by the digest of a presented secret, kept briefly so repeated
 * calls skip the database. Only found keys enter (a key created on another
 * instance works at once); an entry answers for `ttlMs`, which bounds how
 * long a revocation this instance was not told of goes unseen. When full, the
 * oldest entries make room.
 */
export class KeyCache<P> {
  readonly #entries: ExpiringMap<string, CachedKey<P>>;
  readonly #ttlMs: number;

  constructor(ttlMs: number, maxEntries: number) {
    this.#ttlMs = ttlMs;
    this.#entries = new ExpiringMap({ maxEntries: ttlMs > 0 ? maxEntries : 0 });
  }

  get(digest: string, nowMs: number): CachedKey<P> | undefined {
    return this.#entries.get(digest, nowMs);
  }

  set(digest: string, key: CachedKey<P>, nowMs: number): void {
    this.#entries.set(digest, key, nowMs + this.#ttlMs);
  }

  /** Drops every entry of a workspace's keys (one of them changed). */
  forgetWorkspace(workspace: string): void {
    this.#entries.deleteWhere((key) => key.record.workspace === workspace);
  }

  clear(): void {
    this.#entries.clear();
  }
}
