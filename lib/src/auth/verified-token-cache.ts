import { ExpiringMap } from '../expiring-map.js';
import type { Principal } from './principal.js';

export interface VerifiedTokenCacheOptions {
  /** Most tokens kept (default 10,000); 0 turns the cache off. */
  readonly maxEntries?: number;
  /** Most token characters kept, all entries together (default 4 Mi, about 4 MiB). */
  readonly maxChars?: number;
  /**
   * Longest a verification is reused (default 60 s), however far off the
   * token's `exp`: it bounds how long a token signed with a key the identity
   * provider has since withdrawn from its JWKS keeps working.
   */
  readonly maxAgeMs?: number;
}

/**
 * Verified tokens by their exact text, so a caller's repeated calls skip the
 * signature check (the largest cost of an authenticated read). Only verified
 * tokens enter; the key is the whole token, signature included, so a changed
 * byte misses. An entry answers until the token's `exp` or `maxAgeMs`,
 * whichever comes first; `nbf` and `iat` passed at verification stay passed.
 * When full, the oldest entries make room.
 */
export class VerifiedTokenCache {
  readonly #entries: ExpiringMap<string, Principal>;
  readonly #maxAgeMs: number;

  constructor(options: VerifiedTokenCacheOptions = {}) {
    this.#entries = new ExpiringMap({
      maxEntries: options.maxEntries ?? 10_000,
      weigh: (token) => token.length,
      maxWeight: options.maxChars ?? 4 * 1024 * 1024,
    });
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The principal of a token verified before and still within its validity at `nowMs`. */
  get(token: string, nowMs: number): Principal | undefined {
    return this.#entries.get(token, nowMs);
  }

  /** Keeps a verified token; `expiresAtMs` is its `exp` (plus any clock tolerance) in epoch ms. */
  set(token: string, principal: Principal, nowMs: number, expiresAtMs: number): void {
    this.#entries.set(token, principal, Math.min(expiresAtMs, nowMs + this.#maxAgeMs));
  }
}
