import { SignJWT } from 'jose';
import { invalidArgument } from '../errors.js';
import { hmacKey } from './hmac-key.js';
import { isScope, SCOPES, WORKSPACE_PATTERN, type Scope } from './principal.js';

export interface SignTokenOptions {
  readonly workspace: string;
  /** The caller's name (`sub`); `dev` unless set. */
  readonly subject?: string;
  /** Granted scopes, as a list or space-separated; all four unless set. */
  readonly scopes?: readonly Scope[] | string;
  /** Lifetime; one hour unless set. */
  readonly ttlSeconds?: number;
  /** The issue time; now unless set. */
  readonly now?: Date;
}

export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/**
 * Mints an HS256 bearer token as the contract describes it: `sub`,
 * `workspace`, `scope` (space-separated), `iat`, `exp`. For development and
 * for deployments that verify with the same secret.
 */
export async function signToken(secret: Uint8Array | string, options: SignTokenOptions): Promise<string> {
  const key = hmacKey(secret);
  const subject = options.subject ?? 'dev';
  if (typeof subject !== 'string' || subject.trim() === '' || subject.length > 256)
    throw invalidArgument('subject', 'must be 1 to 256 characters');
  if (typeof options.workspace !== 'string' || !WORKSPACE_PATTERN.test(options.workspace))
    throw invalidArgument('workspace', `must match ${WORKSPACE_PATTERN.source}`);
  const scopes = scopeList(options.scopes ?? SCOPES);
  const ttl = options.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl <= 0) throw invalidArgument('ttlSeconds', 'must be a positive whole number of seconds');
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw invalidArgument('now', 'must be a valid Date');
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ workspace: options.workspace, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(key);
}

function scopeList(scopes: readonly string[] | string): Scope[] {
  const list = typeof scopes === 'string' ? scopes.split(/\s+/).filter(Boolean) : [...scopes];
  const unknown = list.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw invalidArgument('scopes', `unknown scope; choose from ${SCOPES.join(' ')}`);
  return [...new Set(list as Scope[])];
}
