import type { KeyRecord } from '../ports/key-store.js';
import type { ApiKey } from './types.js';

/** What callers see of a stored key: no digests, no workspace (it is theirs). */
export function toApiKey(record: KeyRecord): ApiKey {
  return Object.freeze({
    id: record.id,
    name: record.name,
    scopes: Object.freeze([...record.scopes]),
    createdBy: record.createdBy,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt: record.lastUsedAt,
    revokedAt: record.revokedAt,
  });
}
