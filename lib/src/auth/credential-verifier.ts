import { SwitchyardError } from '../errors.js';
import { looksLikeKeySecret } from '../keys/key-secret.js';
import type { TokenVerifier } from '../ports/token-verifier.js';

/**
 * The chain of verifiers behind one port: a bearer string with the API key
 * prefix (`sy_`) is judged as a key, anything else as a JWT. Nothing
 * downstream learns which it was, except through the principal's `keyId`.
 */
export function createCredentialVerifier(tokens: TokenVerifier, keys: TokenVerifier | undefined): TokenVerifier {
  return Object.freeze({
    verify(bearer: string) {
      if (typeof bearer === 'string' && looksLikeKeySecret(bearer)) {
        if (keys === undefined)
          return Promise.reject(new SwitchyardError('unauthenticated', 'API keys are not accepted here', [{ reason: 'no key store' }]));
        return keys.verify(bearer);
      }
      return tokens.verify(bearer);
    },
  });
}
