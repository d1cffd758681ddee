import { sleep, type TimeSource, type TimerHandle } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import type { IdSource } from '../ids.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { KeyStore } from '../ports/key-store.js';
import { DEFAULT_KEY_MAX_TTL_MS } from './key-input.js';
import { createKeyService, KEY_RETENTION_MS } from './key-service.js';
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
  /**
   * How often keys revoked or expired more than 30 days ago are deleted
   * (on the given time's timers); unset: never by a timer, only by `purge()`.
   */
  readonly purgeEveryMs?: number | undefined;
  /** Told when a purge failed (the next one tries again). */
  readonly onPurgeError?: ((error: unknown) => void) | undefined;
}

export interface ApiKeys {
  readonly service: KeyService;
  readonly verifier: KeyVerifier;
  /**
   * Deletes keys revoked or expired more than 30 days ago (KEY_RETENTION_MS),
   * every instance's alike; returns how many.
   */
  purge(): Promise<number>;
  /**
   * Settles once every revocation and roll published so far has reached the
   * feed or failed to (a command that exits after revoking waits for it):
   * true when all reached it (or there is no feed).
   */
  published(): Promise<boolean>;
  close(): void;
}

/** How often a service deletes keys past their 30 days of being listed. */
export const KEY_PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** How long a revoke or roll waits for the broker to take its news before answering anyway. */
const PUBLISH_WAIT_MS = 1_000;
/** Keys deleted per statement, so one purge never holds the table long. */
const PURGE_BATCH = 500;

/** The key service and the key verifier of one instance, told of each other's and other instances' revocations. */
export function createApiKeys(store: KeyStore, time: TimeSource, ids: IdSource, options: ApiKeyOptions = {}): ApiKeys {
  const maxTtlMs = options.maxTtlMs ?? DEFAULT_KEY_MAX_TTL_MS;
  if (!Number.isSafeInteger(maxTtlMs) || maxTtlMs <= 0) {
    throw new SwitchyardError('invalid_argument', 'keys.maxTtlMs must be a positive integer', [
      { field: 'keys.maxTtlMs', reason: 'not a positive integer' },
    ]);
  }
  const { purgeEveryMs } = options;
  if (purgeEveryMs !== undefined && (!Number.isSafeInteger(purgeEveryMs) || purgeEveryMs <= 0)) {
    throw new SwitchyardError('invalid_argument', 'keys.purgeEveryMs must be a positive integer', [
      { field: 'keys.purgeEveryMs', reason: 'not a positive integer' },
    ]);
  }
  const verifier = createKeyVerifier(store, { clock: time, cacheTtlMs: options.cacheTtlMs, onTouchError: options.onTouchError });
  const { feed } = options;
  let sequence = 0;
  const publishing = new Set<Promise<boolean>>();
  const unsubscribe = feed?.subscribe({
    revision: (workspace) => verifier.forgetWorkspace(workspace),
    // Messages sent while the feed was down are lost: whatever was cached then may be stale.
    state: (up) => up && verifier.forgetAll(),
  });
  const service = createKeyService({
    store,
    clock: time,
    ids,
    maxTtlMs,
    changed: async (record) => {
      verifier.forgetWorkspace(record.workspace);
      if (!feed) return;
      // A lost message only delays: every cached key is read again within cacheTtlMs.
      sequence = Math.max(sequence + 1, time.now().getTime());
      const sent = feed.publish(record.workspace, sequence).then(
        () => true,
        () => false,
      );
      publishing.add(sent);
      void sent.then(() => publishing.delete(sent));
      // The answer waits for the broker to take the news, but not on a broker that hangs.
      const answered = new AbortController();
      await Promise.race([sent, sleep(time, PUBLISH_WAIT_MS, answered.signal).catch(() => undefined)]);
      answered.abort();
    },
  });
  const purge = async (): Promise<number> => {
    const before = new Date(time.now().getTime() - KEY_RETENTION_MS);
    let purged = 0;
    for (;;) {
      const batch = await store.purge(before, PURGE_BATCH);
      purged += batch;
      if (batch < PURGE_BATCH) return purged;
    }
  };
  let purging = false;
  const timer: TimerHandle | undefined =
    purgeEveryMs === undefined
      ? undefined
      : time.setInterval(() => {
          // One purge at a time: a slow database does not pile them up.
          if (purging) return;
          purging = true;
          purge()
            .catch((error: unknown) => options.onPurgeError?.(error))
            .finally(() => (purging = false));
        }, purgeEveryMs);
  // A background chore: it never keeps a process alive (a service that failed to start must still exit).
  timer?.unref?.();
  return Object.freeze({
    service,
    verifier,
    purge,
    published: async () => (await Promise.all([...publishing])).every(Boolean),
    close: () => {
      unsubscribe?.();
      time.clearInterval(timer);
    },
  });
}
