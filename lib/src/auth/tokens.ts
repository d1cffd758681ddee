// Bearer tokens: parsing the header, verifying (HS256 or a remote JWKS) into
// a principal, and minting HS256 tokens.
export { parseBearer, MAX_TOKEN_LENGTH } from './bearer.js';
export { createHmacTokenVerifier, createJwksTokenVerifier, JWKS_ALGORITHMS } from './token-verifiers.js';
export type { TokenVerifierOptions } from './token-verifiers.js';
export type { VerifiedTokenCacheOptions } from './verified-token-cache.js';
export { signToken, DEFAULT_TOKEN_TTL_SECONDS } from './sign-token.js';
export type { SignTokenOptions } from './sign-token.js';
export { MIN_HMAC_SECRET_BYTES } from './hmac-key.js';
