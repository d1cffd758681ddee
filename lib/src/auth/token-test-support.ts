// Shared by the token tests only: crafting tokens the library would never
// sign, and checking refusals.
import type { ExecutionContext } from 'ava';
import { SignJWT, type JWTPayload } from 'jose';
import { isSwitchyardError, type ErrorCode } from '../errors.js';

export const SECRET = 'test-secret-that-is-long-enough-for-hs256!';
export const NOW = new Date('2025-06-01T12:00:00.000Z');
export const NOW_SECONDS = NOW.getTime() / 1000;

/** Valid claims issued at NOW, for one hour; override or remove (with `undefined`) any of them. */
export function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const base: Record<string, unknown> = {
    sub: 'alice',
    workspace: 'acme',
    scope: 'routes:read assets:write',
    iat: NOW_SECONDS,
    exp: NOW_SECONDS + 3600,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined));
}

/** Signs arbitrary claims as they are, bypassing every check of `signToken`. */
export async function signRaw(
  payload: JWTPayload,
  key: Uint8Array | CryptoKey,
  header: { alg: string; kid?: string } = { alg: 'HS256' },
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ typ: 'JWT', ...header }).sign(key);
}

export function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** An unsigned token, written by hand as an attacker would. */
export function unsignedToken(payload: JWTPayload = claims(), alg = 'none'): string {
  return `${base64url({ alg, typ: 'JWT' })}.${base64url(payload)}.`;
}

export const secretBytes = (secret: string) => new TextEncoder().encode(secret);

/** Asserts a refusal with `code` whose message (and details) say `reason` and never contain the token. */
export async function assertRefused(
  t: ExecutionContext,
  promise: Promise<unknown>,
  token: string,
  reason: string | RegExp,
  code: ErrorCode = 'unauthenticated',
): Promise<void> {
  const error = await t.throwsAsync(promise);
  if (!isSwitchyardError(error)) return void t.fail(`expected a SwitchyardError, got ${String(error)}`);
  t.is(error.code, code, error.message);
  if (typeof reason === 'string') t.is(error.message, reason);
  else t.regex(error.message, reason);
  const shown = `${error.message} ${JSON.stringify(error.details)}`;
  for (const part of token.split('.').filter((piece) => piece.length >= 8))
    t.false(shown.includes(part), 'the error repeats part of the token');
}
