import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import type { Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
import { MAX_TOKEN_LENGTH } from './bearer.js';
import { hmacKey } from './hmac-key.js';
import { principalFromClaims } from './token-claims.js';
import { toTokenError } from './token-errors.js';
import { VerifiedTokenCache, type VerifiedTokenCacheOptions } from './verified-token-cache.js';

export interface TokenVerifierOptions {
  /** Leeway for `exp` and `nbf` against clock skew; 0 unless set. */
  readonly clockToleranceSeconds?: number;
  /** When set, the token's `iss` must equal it. */
  readonly issuer?: string;
  /** When set, the token's `aud` must contain it. */
  readonly audience?: string;
  /** Where "now" comes from when checking `exp` and `nbf`. */
  readonly clock?: Clock;
  /**
   * Reuse of verified tokens (see verified-token-cache.ts); on by default,
   * `{ maxEntries: 0 }` verifies every call afresh.
   */
  readonly cache?: VerifiedTokenCacheOptions;
}

/**
 * Signature algorithms accepted from a JWKS: asymmetric only. Accepting HS*
 * here would let anyone sign with the published public key as an HMAC secret.
 */
export const JWKS_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** Verifies HS256 tokens signed with `secret` (at least 32 bytes; a string is UTF-8). */
export function createHmacTokenVerifier(secret: Uint8Array | string, options: TokenVerifierOptions = {}): TokenVerifier {
  const keyBytes = hmacKey(secret);
  // Imported once: handing jose the raw bytes would re-import the key on every call.
  let key: Promise<CryptoKey> | undefined;
  const cryptoKey = (): Promise<CryptoKey> =>
    (key ??= crypto.subtle.importKey('raw', new Uint8Array(keyBytes), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']));
  const verifyOptions = joseOptions(['HS256'], options);
  return verifierOf(async (token) => jwtVerify(token, await cryptoKey(), verifyOptions()), options);
}

/**
 * Verifies tokens against an identity provider's JWKS, fetched when first
 * needed and cached by jose (refetched on an unknown `kid`). A JWKS that cannot
 * be fetched or read makes verification `unavailable`, not `unauthenticated`:
 * the caller's token is not at fault.
 */
export function createJwksTokenVerifier(jwksUrl: string | URL, options: TokenVerifierOptions = {}): TokenVerifier {
  const remote = createRemoteJWKSet(new URL(jwksUrl));
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (isKeySelectionError(error)) throw error;
      throw new SwitchyardError('unavailable', 'token signing keys unavailable', [{ reason: 'the JWKS could not be fetched or read' }], {
        cause: error,
      });
    }
  };
  const verifyOptions = joseOptions(JWKS_ALGORITHMS, options);
  return verifierOf((token) => jwtVerify(token, getKey, verifyOptions()), options);
}

/**
 * How far in the future a token's `iat` may lie (beyond the clock tolerance)
 * before the token is refused as not yet valid. jose checks `iat` only against
 * a maximum age; a token "issued" later than now comes from an issuer with a
 * broken clock or from a forger, so it is refused like a future `nbf`. The
 * minute of slack keeps an identity provider whose clock runs a little ahead
 * working.
 */
export const MAX_ISSUED_AT_SKEW_SECONDS = 60;

function verifierOf(verify: (token: string) => ReturnType<typeof jwtVerify>, options: TokenVerifierOptions): TokenVerifier {
  const nowMs = () => (options.clock?.now() ?? new Date()).getTime();
  const tolerance = options.clockToleranceSeconds ?? 0;
  const cache = new VerifiedTokenCache(options.cache);
  return Object.freeze({
    async verify(token: string) {
      if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) throw toTokenError(undefined);
      const cached = cache.get(token, nowMs());
      if (cached) return cached;
      let claims;
      try {
        ({ payload: claims } = await verify(token));
      } catch (error) {
        throw toTokenError(error);
      }
      const now = nowMs();
      // jose has already checked that a present `iat` is a number.
      if (typeof claims.iat === 'number' && claims.iat > Math.floor(now / 1000) + MAX_ISSUED_AT_SKEW_SECONDS + tolerance)
        throw notYetValid();
      const principal = principalFromClaims(claims);
      // `exp` is required, so jose has checked it is a number.
      cache.set(token, principal, now, ((claims.exp as number) + tolerance) * 1000);
      return principal;
    },
  });
}

function notYetValid(): SwitchyardError {
  const reason = 'token not yet valid';
  return new SwitchyardError('unauthenticated', reason, [{ reason }]);
}

/** Options are fixed at creation; only the current time is read per call. */
function joseOptions(algorithms: readonly string[], options: TokenVerifierOptions): () => JWTVerifyOptions {
  const tolerance = options.clockToleranceSeconds ?? 0;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new SwitchyardError('invalid_argument', 'clockToleranceSeconds must be a non-negative number', [
      { field: 'clockToleranceSeconds', reason: 'must be a non-negative number' },
    ]);
  }
  const fixed: JWTVerifyOptions = Object.freeze({
    algorithms: [...algorithms],
    clockTolerance: tolerance,
    // An unexpiring token would stay valid forever once leaked.
    requiredClaims: ['exp'],
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  });
  const clock = options.clock;
  return clock ? () => ({ ...fixed, currentDate: clock.now() }) : () => fixed;
}

/** Errors that say the token names no usable key, as opposed to the JWKS being unreachable or broken. */
function isKeySelectionError(error: unknown): boolean {
  return (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSENotSupported
  );
}
