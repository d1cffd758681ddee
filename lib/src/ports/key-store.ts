import type { ApiKey } from '../keys/types.js';

/** An API key as stored: what callers see of it, its workspace, and never its secret, only digests of it. */
export interface KeyRecord extends ApiKey {
  readonly workspace: string;
  /** SHA-256 of the current secret, hex. */
  readonly secretDigest: string;
  /** SHA-256 of the secret before the last roll, accepted until `previousValidUntil`. */
  readonly previousDigest: string | undefined;
  readonly previousValidUntil: Date | undefined;
}

export interface KeyListQuery {
  /** Only ids after this one (the page cursor). */
  readonly after?: string | undefined;
  readonly limit: number;
  /** Keys revoked or expired before this time are left out. */
  readonly keptSince: Date;
}

/** What a roll writes: the new secret's digest; the current one becomes the previous, valid until `previousValidUntil`. */
export interface KeyRoll {
  readonly secretDigest: string;
  readonly previousValidUntil: Date;
}

/**
 * Where API keys live. Shared by every service instance; lookups by digest
 * are the hot path (every call a key authenticates).
 *
 * Contract:
 * - `insert` rejects with `already_exists` when the id or a digest is taken.
 * - `get` and `list` see only the given workspace's keys; `list` is in id
 *   order (creation order).
 * - `findByDigest` finds a key by its current or its previous digest, of
 *   any workspace, revoked or not: the caller judges it.
 * - `revoke` sets `revokedAt` once (a second revoke keeps the first time)
 *   and returns the record, undefined for an unknown key.
 * - `roll` moves the current digest to the previous one (dropping any
 *   older), unless the key is revoked; returns the record or undefined.
 * - `touch` sets `lastUsedAt` to `at` only when it is unset or not after
 *   `staleBefore`, so instances together write it at most so often.
 * - `purge` deletes up to `limit` keys, of any workspace, that expired or
 *   were revoked before `before`, and returns how many it deleted.
 */
export interface KeyStore {
  insert(record: KeyRecord): Promise<void>;
  get(workspace: string, id: string): Promise<KeyRecord | undefined>;
  list(workspace: string, query: KeyListQuery): Promise<KeyRecord[]>;
  findByDigest(digest: string): Promise<KeyRecord | undefined>;
  revoke(workspace: string, id: string, at: Date): Promise<KeyRecord | undefined>;
  roll(workspace: string, id: string, roll: KeyRoll): Promise<KeyRecord | undefined>;
  touch(id: string, at: Date, staleBefore: Date): Promise<void>;
  purge(before: Date, limit: number): Promise<number>;
}
