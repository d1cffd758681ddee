import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SwitchyardError } from '../errors.js';

/** A key for signing file urls; `id` travels in every signed url, so a key can be retired without guessing. */
export interface UrlSigningKey {
  readonly id: string;
  /** At least 32 bytes. */
  readonly secret: Uint8Array;
}

export const MIN_SIGNED_URL_SECONDS = 1;
export const MAX_SIGNED_URL_SECONDS = 604_800;
export const MIN_URL_KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The query parameters a signature adds; every other one (transform parameters) is signed as given, but `DOWNLOAD_PARAM`. */
export const SIGNATURE_PARAMS = Object.freeze({ expires: 'expires', keyId: 'kid', signature: 'sig' } as const);

/**
 * `?download` asks a file server for `Content-Disposition: attachment` with
 * the asset's name. It changes no byte and reveals nothing the link does not,
 * so it is outside every signature: a holder of a signed url may add it.
 */
export const DOWNLOAD_PARAM = 'download';

export interface UrlSigner {
  /** The query string (without `?`) that makes `path` readable until `expires` (unix seconds). */
  sign(path: string, linkEpoch: number, expires: number, params?: readonly (readonly [string, string])[]): string;
  /**
   * Throws `permission_denied` unless `query` carries a valid signature of
   * `path` for the asset's current `linkEpoch` and `nowMs` is before its expiry.
   */
  verify(path: string, linkEpoch: number, query: string, nowMs: number): void;
}

/**
 * HMAC-SHA256 over the path, every query parameter but the signature and
 * `download` (sorted, so their order in the url does not matter) and the
 * asset's link epoch. The epoch is not in the url: raising it (revocation)
 * invalidates every link signed before, without a list of revoked links. The first key signs; every
 * key verifies, so links signed before a rotation work until they expire.
 */
export function createUrlSigner(keys: readonly UrlSigningKey[]): UrlSigner {
  if (keys.length === 0)
    throw new SwitchyardError('invalid_argument', 'at least one url signing key is needed', [{ field: 'urlSigningKeys', reason: 'empty' }]);
  const byId = new Map<string, Uint8Array>();
  for (const key of keys) {
    if (!KEY_ID.test(key.id))
      throw new SwitchyardError('invalid_argument', `url signing key id "${key.id}" must be 1-32 letters, digits, "_" or "-"`, [
        { field: 'urlSigningKeys', reason: 'bad key id' },
      ]);
    if (!(key.secret instanceof Uint8Array) || key.secret.length < MIN_URL_KEY_BYTES) {
      throw new SwitchyardError('invalid_argument', `url signing key "${key.id}" must have at least ${MIN_URL_KEY_BYTES} bytes`, [
        { field: 'urlSigningKeys', reason: 'key too short' },
      ]);
    }
    if (byId.has(key.id))
      throw new SwitchyardError('invalid_argument', `url signing key id "${key.id}" is given twice`, [
        { field: 'urlSigningKeys', reason: 'duplicate key id' },
      ]);
    byId.set(key.id, Uint8Array.from(key.secret));
  }
  const signingId = keys[0]!.id;
  const signingSecret = byId.get(signingId)!;

  return Object.freeze({
    sign(path, linkEpoch, expires, params = []) {
      const all: [string, string][] = [
        ...params.map(([name, value]): [string, string] => [name, value]),
        [SIGNATURE_PARAMS.expires, String(expires)],
        [SIGNATURE_PARAMS.keyId, signingId],
      ];
      const query = new URLSearchParams(all);
      query.append(SIGNATURE_PARAMS.signature, mac(signingSecret, path, linkEpoch, all));
      return query.toString();
    },

    verify(path, linkEpoch, query, nowMs) {
      const params = [...new URLSearchParams(query)];
      const one = (name: string) => {
        const values = params.filter(([key]) => key === name);
        return values.length === 1 ? values[0]![1] : undefined;
      };
      const signature = one(SIGNATURE_PARAMS.signature);
      const keyId = one(SIGNATURE_PARAMS.keyId);
      const expiresText = one(SIGNATURE_PARAMS.expires);
      if (signature === undefined || keyId === undefined || expiresText === undefined)
        throw denied('this file is private: its url needs a signature (expires, kid, sig)');
      const secret = byId.get(keyId);
      const expires = /^\d{1,12}$/.test(expiresText) ? Number(expiresText) : NaN;
      const signed = params.filter(([key]) => key !== SIGNATURE_PARAMS.signature);
      if (secret === undefined || Number.isNaN(expires) || !sameSignature(signature, mac(secret, path, linkEpoch, signed)))
        throw denied('the url signature is not valid for this file');
      // Exact: refused from the second it names on, with no grace.
      if (nowMs >= expires * 1000) throw denied(`the signed url expired at ${new Date(expires * 1000).toISOString()}`);
    },
  } satisfies UrlSigner);
}

/** A fresh random key, for embedders that configure none (links then last as long as the process). */
export function randomUrlSigningKey(id = 'k1'): UrlSigningKey {
  return Object.freeze({ id, secret: randomBytes(MIN_URL_KEY_BYTES) });
}

function mac(secret: Uint8Array, path: string, linkEpoch: number, params: readonly (readonly [string, string])[]): string {
  // Sorted by name, then value; each part length-free but unambiguous, as names and values are percent-encoded.
  const canonical = params
    .filter(([name]) => name !== DOWNLOAD_PARAM)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .sort()
    .join('&');
  return createHmac('sha256', secret).update(`switchyard-file-v1\n${path}\n${linkEpoch}\n${canonical}`).digest('base64url');
}

function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function denied(message: string): SwitchyardError {
  return new SwitchyardError('permission_denied', message, [{ field: 'signature', reason: message }]);
}
