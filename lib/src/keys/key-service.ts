import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { KeyRecord, KeyStore } from '../ports/key-store.js';
import { keyExpiryOf, keyNameOf, keyScopesOf, rollGraceOf } from './key-input.js';
import { keySecretDigest, newKeySecret } from './key-secret.js';
import { toApiKey } from './key-view.js';
import type { ApiKeyWithSecret, KeyService } from './types.js';

/** Revoked and expired keys stay listed (and readable) this long, then are gone for callers. */
export const KEY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface KeyServiceParts {
  readonly store: KeyStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The longest life a key may be given. */
  readonly maxTtlMs: number;
  /**
   * Told of each key whose secrets changed (revoked or rolled), so every
   * verifier drops what it cached of it; the revoke or roll answers once this
   * settles (the news is on its way to the other instances). Never rejects.
   */
  readonly changed: (record: KeyRecord) => Promise<void>;
}

export function createKeyService(parts: KeyServiceParts): KeyService {
  const { store, clock, ids } = parts;
  const binding = (workspace: string) => bindingOf('keys', workspace);

  /** The key as long as it is kept: unknown, foreign and long-gone keys are all `not_found`. */
  const kept = async (principal: Principal, id: string): Promise<KeyRecord> => {
    requireScope(principal, 'workspace:admin');
    const record = await store.get(principal.workspace, assertId('key', id));
    const since = clock.now().getTime() - KEY_RETENTION_MS;
    const gone = record && (record.expiresAt.getTime() < since || (record.revokedAt?.getTime() ?? Infinity) < since);
    if (!record || gone) throw new SwitchyardError('not_found', `key ${id} not found`);
    return record;
  };

  return Object.freeze({
    async create(principal, input) {
      requireScope(principal, 'workspace:admin');
      const now = clock.now();
      const name = keyNameOf(input.name);
      const scopes = keyScopesOf(input.scopes, principal);
      const expiresAt = keyExpiryOf(input.expiresAt, now, parts.maxTtlMs);
      const secret = newKeySecret();
      const record: KeyRecord = {
        id: ids.next('key'),
        workspace: principal.workspace,
        name,
        scopes,
        createdBy: principal.subject,
        createdAt: now,
        expiresAt,
        lastUsedAt: undefined,
        revokedAt: undefined,
        secretDigest: keySecretDigest(secret),
        previousDigest: undefined,
        previousValidUntil: undefined,
      };
      await store.insert(record);
      return withSecret(record, secret);
    },

    async list(principal, input = {}) {
      requireScope(principal, 'workspace:admin');
      const limit = pageSizeOf(input.pageSize);
      const after = input.pageToken ? decodePageToken(input.pageToken, binding(principal.workspace), 1)[0] : undefined;
      const keptSince = new Date(clock.now().getTime() - KEY_RETENTION_MS);
      const records = await store.list(principal.workspace, { after, limit: limit + 1, keptSince });
      const page = records.slice(0, limit);
      const last = page.at(-1);
      return Object.freeze({
        keys: Object.freeze(page.map(toApiKey)),
        nextPageToken: records.length > limit && last ? encodePageToken([last.id], binding(principal.workspace)) : '',
      });
    },

    async get(principal, id) {
      return toApiKey(await kept(principal, id));
    },

    async revoke(principal, id) {
      await kept(principal, id);
      const record = await store.revoke(principal.workspace, id, clock.now());
      if (record) await parts.changed(record);
    },

    async roll(principal, id, graceSeconds) {
      const grace = rollGraceOf(graceSeconds);
      const current = await kept(principal, id);
      const now = clock.now();
      if (current.revokedAt !== undefined) throw notRollable(id, 'revoked');
      if (current.expiresAt <= now) throw notRollable(id, 'expired');
      const secret = newKeySecret();
      const record = await store.roll(principal.workspace, id, {
        secretDigest: keySecretDigest(secret),
        previousValidUntil: new Date(now.getTime() + grace * 1000),
      });
      // Revoked meanwhile.
      if (!record) throw notRollable(id, 'revoked');
      await parts.changed(record);
      return withSecret(record, secret);
    },
  } satisfies KeyService);
}

/**
 * A revoked or expired key cannot be rolled: the request is well formed, the
 * key is in the wrong state for it (`failed_precondition`, not retryable
 * unchanged; a new key is the way on).
 */
function notRollable(id: string, state: 'revoked' | 'expired'): SwitchyardError {
  const reason = `the key is ${state}: create a new one`;
  return new SwitchyardError('failed_precondition', `key ${id} cannot be rolled: ${reason}`, [{ field: 'id', reason }]);
}

function withSecret(record: KeyRecord, secret: string): ApiKeyWithSecret {
  return Object.freeze({ ...toApiKey(record), secret });
}
