import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { SwitchyardError } from './errors.js';

/**
 * Ids are opaque to callers: a kind prefix and a lower-case ULID, so they are
 * URL-safe, sort by creation time and say what they name (`rt_…`, `as_…`).
 */
export const ID_PREFIXES = Object.freeze({
  route: 'rt',
  asset: 'as',
  blob: 'bl',
  upload: 'up',
  key: 'key',
  version: 'ver',
  webhook: 'wh',
  delivery: 'dlv',
  message: 'msg',
});
export type IdKind = keyof typeof ID_PREFIXES;

/** Where new ids come from. Must never return the same id twice. */
export interface IdSource {
  next(kind: IdKind): string;
}

const ULID_BODY = '[0-9abcdefghjkmnpqrstvwxyz]{26}';
const ID_PATTERNS: Readonly<Record<IdKind, RegExp>> = Object.freeze({
  route: new RegExp(`^rt_${ULID_BODY}$`),
  asset: new RegExp(`^as_${ULID_BODY}$`),
  blob: new RegExp(`^bl_${ULID_BODY}$`),
  upload: new RegExp(`^up_${ULID_BODY}$`),
  key: new RegExp(`^key_${ULID_BODY}$`),
  version: new RegExp(`^ver_${ULID_BODY}$`),
  webhook: new RegExp(`^wh_${ULID_BODY}$`),
  delivery: new RegExp(`^dlv_${ULID_BODY}$`),
  message: new RegExp(`^msg_${ULID_BODY}$`),
});

export function createUlidSource(): IdSource {
  const ulid = monotonicFactory(pooledRandom());
  return { next: (kind) => `${ID_PREFIXES[kind]}_${ulid().toLowerCase()}` };
}

/** Random bytes drawn from the system's CSPRNG this many at a time. */
const RANDOM_POOL_BYTES = 4096;

/**
 * ulid's PRNG as ulid's own default makes it (a random byte / 256, so each of
 * the 32 characters is equally likely), but from a pool of CSPRNG bytes
 * instead of one `crypto.getRandomValues` call per character. Written by hand
 * for speed: one `randomFillSync` per 4 KiB instead of 16 calls per id.
 * Justified by rest-create-route (bench/hand-written-parts.md#pooled-random).
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(RANDOM_POOL_BYTES);
  let next = RANDOM_POOL_BYTES;
  return () => {
    if (next === RANDOM_POOL_BYTES) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

export function isId(kind: IdKind, value: string): boolean {
  return ID_PATTERNS[kind].test(value);
}

/** Refuses a malformed id with `invalid_argument`; a well-formed one may still be unknown. */
export function assertId(kind: IdKind, value: unknown, field = 'id'): string {
  if (typeof value === 'string' && isId(kind, value)) return value;
  throw new SwitchyardError('invalid_argument', `${field}: not a valid ${kind} id`, [
    { field, reason: `expected "${ID_PREFIXES[kind]}_" followed by 26 lower-case base32 characters` },
  ]);
}
