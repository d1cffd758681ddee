import type { Principal } from '../auth/principal.js';

/**
 * Turns a bearer token into a principal.
 *
 * Contract: resolves to a principal for a valid token; rejects with
 * `SwitchyardError('unauthenticated')` for anything else (malformed, unsigned,
 * wrongly signed, expired, not yet valid, missing claims). Never reveals the
 * token in the error message.
 */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}
