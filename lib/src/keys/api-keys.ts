import type { Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import type { IdSource } from '../ids.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { KeyStore } from '../ports/key-store.js';
import { DEFAULT_KEY_MAX_TTL_MS } from './key-input.js';
import { createKeyService } from './key-service.js';
import { createKeyVerifier, type KeyVerifier } from './key-verifier.js';
import type { KeyService } from './types.js';

export interface ApiKeyOptions {
  /** The longest life a key may be given (default 365 days). */
  readonly maxTtlMs?: number | undefined;
  /** How long a key read from the store is trusted (default 5 s): the bound on an unannounced revocation. */
  readonly cacheTtlMs?: number | undefined;
  /**
   * A feed shared by every instance (a broker): each revoke and roll is
   * published on it, and every instance drops what it cached of that
   * workspace's keys on hearing it. Its messages carry a workspace and a
   * number that only grows; nothing else.
   */
  readonly feed?: ChangeFeed | undefined;
  /** Told when writing a key's last use failed. */
  readonly onTouchError?: ((error: unknown) => void) | undefined;
}

export interface ApiKeys {
  readonly service: KeyService;
  readonly verifier: KeyVerifier;
  close(): void;
}

/** The key service and the key verifier of one instance, told of each other's and other instances' revocations. */
export function createApiKeys(store: KeyStore, clock: Clock, ids: IdSource, options: ApiKeyOptions = {}): ApiKeys {
  const maxTtlMs = options.maxTtlMs ?? DEFAULT_KEY_MAX_TTL_MS;
  if (!Number.isSafeInteger(maxTtlMs) || maxTtlMs <= 0) {
    throw new SwitchyardError('invalid_argument', 'keys.maxTtlMs must be a positive integer', [
      { field: 'keys.maxTtlMs', reason: 'not a positive integer' },
    ]);
  }
  const verifier = createKeyVerifier(store, { clock, cacheTtlMs: options.cacheTtlMs, onTouchError: options.onTouchError });
  const { feed } = options;
  let sequence = 0;
  const unsubscribe = feed?.subscribe({
    revision: (workspace) => verifier.forgetWorkspace(workspace),
    // Messages sent while the feed was down are lost: whatever was cached then may be stale.
    state: (up) => up && verifier.forgetAll(),
  });
  const service = createKeyService({
    store,
    clock,
    ids,
    maxTtlMs,
    changed: (record) => {
      verifier.forgetWorkspace(record.workspace);
      // A lost message only delays: every cached key is read again within cacheTtlMs.
      sequence = Math.max(sequence + 1, clock.now().getTime());
      feed?.publish(record.workspace, sequence).catch(() => undefined);
    },
  });
  return Object.freeze({ service, verifier, close: () => unsubscribe?.() });
}
