// The signed-in session: the bearer token lives in memory and in
// sessionStorage (a reload keeps this tab signed in; other tabs and later
// visits do not see it). Never localStorage, a cookie or a URL.
import { computed, effect, signal } from '@preact/signals';
import { decodeToken, type TokenClaims } from './jwt.js';

const STORAGE_KEY = 'switchyard.console.token';
/** An API key's secret carries no claims: the server's answer (GET /v1/caller) is kept beside it. */
const KEY_CLAIMS_KEY = 'switchyard.console.key-claims';

export type Scope = 'routes:read' | 'routes:write' | 'assets:read' | 'assets:write' | 'workspace:admin';

export const token = signal<string | null>(null);
/** The claims of a signed-in API key, as the server told them; null for a token (its claims are in it). */
const keyClaims = signal<TokenClaims | null>(null);
/** Why the last session ended (shown on the sign-in page), or "". */
export const signOutReason = signal('');

export const claims = computed<TokenClaims | null>(() => {
  const value = token.value;
  if (value === null) return null;
  if (isApiKey(value)) return keyClaims.value;
  const decoded = decodeToken(value);
  return typeof decoded === 'string' ? null : decoded;
});

/** Listeners told when the session ends, so views drop what they hold (uploads, watches). */
const endListeners = new Set<() => void>();
export function onSessionEnd(listener: () => void): () => void {
  endListeners.add(listener);
  return () => endListeners.delete(listener);
}

/** Whether the credential is an API key (`sy_…`) rather than a JWT. */
export function isApiKey(value: string): boolean {
  return value.startsWith('sy_');
}

/** Accepts a token after the server has (see SignIn); the claims come from its payload, or for an API key from the server. */
export function startSession(value: string, claimsOfKey?: TokenClaims): void {
  keyClaims.value = claimsOfKey ?? null;
  token.value = value;
  signOutReason.value = '';
  try {
    sessionStorage.setItem(STORAGE_KEY, value);
    if (claimsOfKey) sessionStorage.setItem(KEY_CLAIMS_KEY, JSON.stringify(claimsOfKey));
  } catch {
    // Storage refused (private mode quotas): the session lives in memory only.
  }
}

export function signOut(reason = ''): void {
  if (token.value === null) return;
  token.value = null;
  keyClaims.value = null;
  signOutReason.value = reason;
  try {
    sessionStorage.removeItem(STORAGE_KEY);
    sessionStorage.removeItem(KEY_CLAIMS_KEY);
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
  const decoded = isApiKey(stored) ? storedKeyClaims() : decodeToken(stored);
  if (typeof decoded === 'string' || isExpired(decoded)) {
    sessionStorage.removeItem(STORAGE_KEY);
    sessionStorage.removeItem(KEY_CLAIMS_KEY);
    if (typeof decoded !== 'string') signOutReason.value = expiredMessage(decoded);
    return;
  }
  if (isApiKey(stored)) keyClaims.value = decoded;
  token.value = stored;
}

/** The claims kept beside a stored API key, or why there are none. */
function storedKeyClaims(): TokenClaims | string {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(KEY_CLAIMS_KEY) ?? '') as Partial<TokenClaims>;
    if (typeof parsed.workspace !== 'string' || !Array.isArray(parsed.scopes)) return 'no claims kept for the key';
    return {
      subject: typeof parsed.subject === 'string' ? parsed.subject : '',
      workspace: parsed.workspace,
      scopes: parsed.scopes.filter((scope): scope is string => typeof scope === 'string'),
      expiresAt: typeof parsed.expiresAt === 'number' ? parsed.expiresAt : undefined,
    };
  } catch {
    return 'no claims kept for the key';
  }
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
