import type { Metadata } from '@grpc/grpc-js';
import {
  createHmacTokenVerifier,
  createJwksTokenVerifier,
  parseBearer,
  SwitchyardError,
  type Principal,
  type TokenVerifier,
} from '@switchyard/core';
import { resolveAuthSecret } from '../auth-secret.js';
import type { ServiceConfig } from '../config.js';

/** Turns a call's metadata into the verified caller, or rejects with `unauthenticated`. */
export type Authenticate = (metadata: Metadata) => Promise<Principal>;

/**
 * The one place where gRPC metadata meets tokens: exactly one
 * `authorization: Bearer <token>` entry, verified by the configured verifier.
 */
export function createAuthenticator(verifier: TokenVerifier): Authenticate {
  // Not an async function: one returning the verifier's promise costs two more turns of the microtask queue.
  return (metadata) => {
    let token: string;
    try {
      token = bearerOf(metadata);
    } catch (error) {
      return Promise.reject(error);
    }
    return verifier.verify(token);
  };
}

function bearerOf(metadata: Metadata): string {
  const values = metadata.get('authorization');
  if (values.length > 1) throw new SwitchyardError('unauthenticated', 'send exactly one authorization entry');
  const header = values[0];
  return parseBearer(typeof header === 'string' ? header : undefined);
}

/** HS256 over AUTH_SECRET (or the secret kept in DATA_DIR), or the identity provider's JWKS. */
export async function createTokenVerifier(config: Pick<ServiceConfig, 'auth' | 'dataDir'>): Promise<TokenVerifier> {
  if (config.auth.kind === 'jwks') return createJwksTokenVerifier(new URL(config.auth.url));
  return createHmacTokenVerifier(await resolveAuthSecret(config));
}
