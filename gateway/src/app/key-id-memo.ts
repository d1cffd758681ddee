import { ExpiringMap } from '@switchyard/core';

/** How long the gateway keeps naming a secret's key without hearing it from the service again. */
export const KEY_ID_MEMO_TTL_MS = 60_000;
/** Secrets remembered at most; when full, the oldest entry makes room. */
export const KEY_ID_MEMO_MAX_ENTRIES = 10_000;

/**
 * Which API key each recently presented `Authorization: Bearer sy_…` belongs
 * to, as the service named it in its response headers. A secret belongs to
 * one key for good (a roll gives the same key a new secret), so once told,
 * the gateway stops asking: the service's headers are then not read, which
 * in process means not made (about 5 µs a call: undici's Headers, the
 * metadata copy and an empty trailer). The memo only names keys in the
 * access line and span; whether a call is accepted the service decides, on
 * every call. Entries last KEY_ID_MEMO_TTL_MS, so a presented secret is held
 * here no longer than that after the service last named its key.
 * Justified by rest-get-asset-key (bench/hand-written-parts.md#key-id-memo).
 */
export class KeyIdMemo {
  readonly #entries: ExpiringMap<string, string>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? KEY_ID_MEMO_TTL_MS;
    this.#entries = new ExpiringMap({ maxEntries: options.maxEntries ?? KEY_ID_MEMO_MAX_ENTRIES });
    this.#now = options.now ?? (() => performance.now());
  }

  /** The key `authorization` presents, when the service named it within the TTL. */
  get(authorization: string): string | undefined {
    return this.#entries.get(authorization, this.#now());
  }

  /** The service named `keyId` as the key that authenticated a call made with `authorization`. */
  remember(authorization: string, keyId: string): void {
    this.#entries.set(authorization, keyId, this.#now() + this.#ttlMs);
  }
}
