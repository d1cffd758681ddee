import type { Principal, Scope } from '../auth/principal.js';

/** An API key as callers see it: never its secret (but see `ApiKeyWithSecret`). */
export interface ApiKey {
  /** `key_…`. */
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  /** The subject of whoever created it. */
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** Within a minute of the last call the key authenticated; undefined when never used. */
  readonly lastUsedAt: Date | undefined;
  readonly revokedAt: Date | undefined;
}

/** A key with its secret: returned by create and roll only, shown once. */
export interface ApiKeyWithSecret extends ApiKey {
  /** `sy_…`: send as `Authorization: Bearer <secret>`. */
  readonly secret: string;
}

export interface CreateKeyInput {
  readonly name: string;
  /** A subset of the creator's scopes, at least one. */
  readonly scopes: readonly string[];
  /** In the future, at most the longest key life (365 days unless configured). */
  readonly expiresAt: Date;
}

export interface KeyListInput {
  readonly pageSize?: number | undefined;
  readonly pageToken?: string | undefined;
}

export interface KeyPage {
  /** Oldest first; revoked and expired keys stay listed for 30 days. */
  readonly keys: readonly ApiKey[];
  readonly nextPageToken: string;
}

/** Workspace API keys; every operation needs `workspace:admin`. */
export interface KeyService {
  create(principal: Principal, input: CreateKeyInput): Promise<ApiKeyWithSecret>;
  list(principal: Principal, input?: KeyListInput): Promise<KeyPage>;
  get(principal: Principal, id: string): Promise<ApiKey>;
  /** Idempotent for a key already revoked; the key is refused everywhere within the revocation bound. */
  revoke(principal: Principal, id: string): Promise<void>;
  /** A new secret; the old one keeps working for `graceSeconds` (0 to 604800). */
  roll(principal: Principal, id: string, graceSeconds: number): Promise<ApiKeyWithSecret>;
}
