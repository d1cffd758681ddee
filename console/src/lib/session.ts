// The signed-in session: the bearer token lives in memory and in
// sessionStorage (a reload keeps this tab signed in; other tabs and later
// visits do not see it). Never localStorage, a cookie or a URL.
import { computed, effect, signal } from '@preact/signals';
import { decodeToken, type TokenClaims } from './jwt.js';

const STORAGE_KEY = 'switchyard.console.token';

export type Scope = 'routes:read' | 'routes:write' | 'assets:read' | 'assets:write' | 'workspace:admin';

export const token = signal<string | null>(null);
/** Why the last session ended (shown on the sign-in page), or "". */
export const signOutReason = signal('');

export const claims = computed<TokenClaims | null>(() => {
  const value = token.value;
  if (value === null) return null;
  const decoded = decodeToken(value);
  return typeof decoded === 'string' ? null : decoded;
});

/** Listeners told when the session ends, so views drop what they hold (uploads, watches). */
const endListeners = new Set<() => void>();
export function onSessionEnd(listener: () => void): () => void {
  endListeners.add(listener);
  return () => endListeners.delete(listener);
}

/** Accepts a token after the server has (see SignIn); the claims come from its payload. */
export function startSession(value: string): void {
  token.value = value;
  signOutReason.value = '';
  try {
    sessionStorage.setItem(STORAGE_KEY, value);
  } catch {
    // Storage refused (private mode quotas): the session lives in memory only.
  }
}

export function signOut(reason = ''): void {
  if (token.value === null) return;
  token.value = null;
  signOutReason.value = reason;
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
  for (const listener of [...endListeners]) listener();
}

/** The reason an action needing `scope` is disabled, or undefined when the token allows it. */
export function missingScope(scope: Scope): string | undefined {
  const current = claims.value;
  if (current?.scopes.includes(scope)) return undefined;
  return `Your token does not carry the ${scope} scope.`;
}

export function currentToken(): string {
  return token.value ?? '';
}

/** A token found in sessionStorage after a reload, unless it has expired meanwhile. */
export function restoreSession(): void {
  let stored: string | null;
  try {
    stored = sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return;
  }
  if (stored === null) return;
  const decoded = decodeToken(stored);
  if (typeof decoded === 'string' || isExpired(decoded)) {
    sessionStorage.removeItem(STORAGE_KEY);
    if (typeof decoded !== 'string') signOutReason.value = expiredMessage(decoded);
    return;
  }
  token.value = stored;
}

export function isExpired(tokenClaims: TokenClaims, now = Date.now()): boolean {
  return tokenClaims.expiresAt !== undefined && tokenClaims.expiresAt * 1000 <= now;
}

export function expiredMessage(tokenClaims: TokenClaims): string {
  const when = tokenClaims.expiresAt === undefined ? '' : ` at ${new Date(tokenClaims.expiresAt * 1000).toLocaleString()}`;
  return `Your token expired${when}. Sign in with a fresh one.`;
}

// The session ends when the token expires, even if no call notices it.
let expiryTimer: ReturnType<typeof setTimeout> | undefined;
effect(() => {
  clearTimeout(expiryTimer);
  const current = claims.value;
  if (current?.expiresAt === undefined) return;
  const check = () => {
    if (claims.value !== current) return;
    const left = current.expiresAt! * 1000 - Date.now();
    // setTimeout holds at most ~24.8 days; longer waits are taken in steps.
    if (left > 0) expiryTimer = setTimeout(check, Math.min(left, 2 ** 31 - 1));
    else signOut(expiredMessage(current));
  };
  check();
});
