import { SwitchyardError } from '../errors.js';

// RFC 6750 b64token; JWTs use a subset of it.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** `Bearer <b64token>` exactly, as nearly every client sends it. */
const USUAL_BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;
/** Tokens far larger than any sane JWT are refused before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;

/**
 * Extracts the token from an `Authorization: Bearer <token>` value. The scheme
 * is case-insensitive; exactly one token must follow. Refusals never repeat
 * what was sent: a misplaced token must not end up in logs.
 */
export function parseBearer(header: string | undefined | null): string {
  // The common shape, in one match: no trimming, splitting or case folding.
  const usual = typeof header === 'string' ? USUAL_BEARER.exec(header) : null;
  if (usual !== null && usual[1]!.length <= MAX_TOKEN_LENGTH) return usual[1]!;
  if (typeof header !== 'string' || header.trim() === '') throw unauthenticated('missing bearer token');
  const parts = header.trim().split(/ +/);
  if (parts[0]?.toLowerCase() !== 'bearer') throw unauthenticated('authorization must use the Bearer scheme');
  const token = parts[1];
  if (parts.length !== 2 || token === undefined) throw unauthenticated('authorization must be "Bearer" followed by exactly one token');
  if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated('bearer token too long');
  if (!B64TOKEN.test(token)) throw unauthenticated('malformed bearer token');
  return token;
}

function unauthenticated(reason: string): SwitchyardError {
  return new SwitchyardError('unauthenticated', reason, [{ field: 'authorization', reason }]);
}
