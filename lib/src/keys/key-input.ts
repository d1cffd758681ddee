import { isScope, type Principal, type Scope } from '../auth/principal.js';
import { invalidArgument, SwitchyardError } from '../errors.js';

export const MAX_KEY_NAME_LENGTH = 100;
/** The longest a key may live unless the operator says otherwise (KEY_MAX_TTL). */
export const DEFAULT_KEY_MAX_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** The longest an old secret may keep working after a roll. */
export const MAX_ROLL_GRACE_SECONDS = 604_800;

// C0 and C1 control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function keyNameOf(name: unknown): string {
  if (typeof name !== 'string') throw invalidArgument('name', 'is required');
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_KEY_NAME_LENGTH)
    throw invalidArgument('name', `must be 1 to ${MAX_KEY_NAME_LENGTH} characters`);
  if (CONTROL.test(trimmed)) throw invalidArgument('name', 'must not contain control characters');
  return trimmed;
}

/**
 * The key's scopes: known ones, at least one, none the creator lacks (a key
 * never grants more than the person who made it holds).
 */
export function keyScopesOf(scopes: unknown, creator: Principal): Scope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) throw invalidArgument('scopes', 'must list at least one scope');
  const known: Scope[] = [];
  for (const [index, scope] of scopes.entries()) {
    if (typeof scope !== 'string' || !isScope(scope)) throw invalidArgument(`scopes[${index}]`, 'is not a known scope');
    if (!known.includes(scope)) known.push(scope);
  }
  const beyond = known.filter((scope) => !creator.scopes.has(scope));
  if (beyond.length > 0) {
    throw new SwitchyardError('permission_denied', `a key cannot hold scopes its creator lacks: ${beyond.join(' ')}`, [
      { field: 'scopes', reason: `the caller lacks ${beyond.join(' ')}` },
    ]);
  }
  return known;
}

export function keyExpiryOf(expiresAt: unknown, now: Date, maxTtlMs: number): Date {
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) throw invalidArgument('expiresAt', 'is required (a time)');
  if (expiresAt <= now) throw invalidArgument('expiresAt', 'must be in the future');
  if (expiresAt.getTime() > now.getTime() + maxTtlMs)
    throw invalidArgument('expiresAt', `must be at most ${Math.floor(maxTtlMs / 1000)} seconds from now`);
  return expiresAt;
}

export function rollGraceOf(graceSeconds: unknown): number {
  if (typeof graceSeconds !== 'number' || !Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_ROLL_GRACE_SECONDS)
    throw invalidArgument('graceSeconds', `must be a whole number from 0 to ${MAX_ROLL_GRACE_SECONDS}`);
  return graceSeconds;
}
