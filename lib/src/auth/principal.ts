import { SwitchyardError } from '../errors.js';

export const SCOPES = ['routes:read', 'routes:write', 'assets:read', 'assets:write', 'workspace:admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The verified caller of an operation. */
export interface Principal {
  /** Who is calling (the token's `sub`). */
  readonly subject: string;
  /** The tenant whose records the caller sees (the token's `workspace`). */
  readonly workspace: string;
  readonly scopes: ReadonlySet<Scope>;
  /** The API key that authenticated the call (`key_…`), for logs and traces; undefined for a token. */
  readonly keyId?: string | undefined;
  /** When the API key that authenticated the call expires; undefined for a token. */
  readonly expiresAt?: Date | undefined;
}

/** Workspace names become folder names in blob stores, so keep them plain. */
export const WORKSPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Builds a principal, validating what a token would have to carry. */
export function createPrincipal(subject: string, workspace: string, scopes: Iterable<string>): Principal {
  if (!subject) throw new SwitchyardError('unauthenticated', 'token has no subject');
  if (!WORKSPACE_PATTERN.test(workspace)) throw new SwitchyardError('unauthenticated', 'token has no valid workspace');
  const known = [...scopes].filter(isScope);
  return Object.freeze({ subject, workspace, scopes: new Set(known) });
}

/** Refuses with `permission_denied` unless the principal holds the scope. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) {
    throw new SwitchyardError('permission_denied', `missing scope ${scope}`, [{ reason: `token lacks scope ${scope}` }]);
  }
}
