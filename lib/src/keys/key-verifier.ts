import type { Principal } from '../auth/principal.js';
import { createPrincipal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import type { KeyRecord, KeyStore } from '../ports/key-store.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
import { KeyCache } from './key-cache.js';
import { digestsEqual, isWellFormedKeySecret, keySecretDigest } from './key-secret.js';

/** How long a key read from the store is trusted without reading it again: the revocation bound without a broker. */
export const DEFAULT_KEY_CACHE_TTL_MS = 5_000;
/** `lastUsedAt` is written at most this often per key, across every instance. */
export const KEY_LAST_USED_INTERVAL_MS = 60_000;

export interface KeyVerifierOptions {
  readonly clock: Clock;
  /** See DEFAULT_KEY_CACHE_TTL_MS; 0 reads the store on every call. */
  readonly cacheTtlMs?: number | undefined;
  readonly cacheMaxEntries?: number | undefined;
  /** Told when writing `lastUsedAt` failed (the call still succeeds). */
  readonly onTouchError?: ((error: unknown) => void) | undefined;
}

/** Turns `sy_…` secrets into principals; `forgetWorkspace` drops what it cached of a workspace's keys. */
export interface KeyVerifier extends TokenVerifier {
  forgetWorkspace(workspace: string): void;
  /** Drops every cached key (the revocation feed was down and may have lost messages). */
  forgetAll(): void;
}

/** Justified by rest-get-asset-key (bench/hand-written-parts.md#cached-key-caller). */
export function createKeyVerifier(store: KeyStore, options: KeyVerifierOptions): KeyVerifier {
  const cache = new KeyCache<Principal>(options.cacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS, options.cacheMaxEntries ?? 10_000);
  /** When this instance last wrote each key's `lastUsedAt` (epoch ms), so a busy key costs one write a minute. */
  const touched = new Map<string, number>();

  const touch = (record: KeyRecord, nowMs: number): void => {
    const last = Math.max(record.lastUsedAt?.getTime() ?? -Infinity, touched.get(record.id) ?? -Infinity);
    if (nowMs - last < KEY_LAST_USED_INTERVAL_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(record.id, nowMs);
    store
      .touch(record.id, new Date(nowMs), new Date(nowMs - KEY_LAST_USED_INTERVAL_MS))
      .catch((error: unknown) => options.onTouchError?.(error));
  };

  return Object.freeze({
    async verify(secret: string): Promise<Principal> {
      if (typeof secret !== 'string') throw refuse('malformed API key');
      const digest = keySecretDigest(secret);
      const nowMs = options.clock.now().getTime();
      let key = cache.get(digest, nowMs);
      if (key === undefined) {
        // A mistyped or made-up secret costs no database read. (A cached digest is a stored key's: well formed.)
        if (!isWellFormedKeySecret(secret)) throw refuse('malformed API key');
        const record = await store.findByDigest(digest);
        if (record === undefined) throw refuse('unknown API key');
        // The digests are compared in constant time here, once per read; later calls find the entry by this digest.
        key = { record, principal: principalOf(record), current: digestsEqual(record.secretDigest, digest) };
        if (!key.current && !(record.previousDigest !== undefined && digestsEqual(record.previousDigest, digest)))
          throw refuse('API key secret was rolled');
        cache.set(digest, key, nowMs);
      }
      const { record } = key;
      if (!key.current && !(record.previousValidUntil !== undefined && nowMs < record.previousValidUntil.getTime()))
        throw refuse('API key secret was rolled');
      if (record.revokedAt !== undefined) throw refuse('API key revoked');
      if (nowMs >= record.expiresAt.getTime()) throw refuse('API key expired');
      touch(record, nowMs);
      return key.principal;
    },
    forgetWorkspace: (workspace: string) => cache.forgetWorkspace(workspace),
    forgetAll: () => cache.clear(),
  });
}

function principalOf(record: KeyRecord): Principal {
  const principal = createPrincipal(record.id, record.workspace, record.scopes);
  return Object.freeze({
    subject: principal.subject,
    workspace: principal.workspace,
    scopes: principal.scopes,
    keyId: record.id,
    expiresAt: record.expiresAt,
  });
}

function refuse(reason: string): SwitchyardError {
  return new SwitchyardError('unauthenticated', reason, [{ reason }]);
}
