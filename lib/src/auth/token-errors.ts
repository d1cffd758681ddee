import { errors } from 'jose';
import { SwitchyardError } from '../errors.js';

/**
 * Maps whatever token verification threw to `unauthenticated` with a generic
 * reason. jose's messages never hold the token, but its claim errors carry the
 * payload, so no jose error is kept as the cause of a refusal.
 */
export function toTokenError(error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  return refuse(reasonFor(error));
}

function reasonFor(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) return claimReason(error.claim, error.reason);
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'invalid token signature';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'token algorithm not accepted';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no known key matches the token';
  return 'malformed token';
}

function claimReason(claim: string, reason: string): string {
  if (reason === 'missing') return `token has no ${claim} claim`;
  if (claim === 'nbf') return 'token not yet valid';
  if (claim === 'iss') return 'token issuer not accepted';
  if (claim === 'aud') return 'token audience not accepted';
  return `token ${claim} claim is invalid`;
}

function refuse(reason: string): SwitchyardError {
  return new SwitchyardError('unauthenticated', reason, [{ reason }]);
}
