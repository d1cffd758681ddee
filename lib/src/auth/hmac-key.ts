import { SwitchyardError } from '../errors.js';

/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash output. */
export const MIN_HMAC_SECRET_BYTES = 32;

/** The key bytes of an HS256 secret (a string is taken as UTF-8), refusing short ones. */
export function hmacKey(secret: Uint8Array | string): Uint8Array {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(key instanceof Uint8Array) || key.byteLength < MIN_HMAC_SECRET_BYTES) {
    // Never echo the secret, not even a bad one.
    throw new SwitchyardError('invalid_argument', `auth secret must be at least ${MIN_HMAC_SECRET_BYTES} bytes`, [
      { field: 'secret', reason: `shorter than ${MIN_HMAC_SECRET_BYTES} bytes` },
    ]);
  }
  return key;
}
