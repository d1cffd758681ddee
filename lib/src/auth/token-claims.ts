import type { JWTPayload } from 'jose';
import { SwitchyardError } from '../errors.js';
import { createPrincipal, WORKSPACE_PATTERN, type Principal } from './principal.js';

const MAX_SUBJECT_LENGTH = 256;

/**
 * Turns the claims of a verified token into a principal: `sub` and
 * `workspace` are required, `scope` is an optional space-separated string
 * whose unknown entries are ignored (an identity provider may add its own).
 */
export function principalFromClaims(claims: JWTPayload): Principal {
  const { sub, workspace, scope } = claims;
  if (typeof sub !== 'string' || sub.trim() === '' || sub.length > MAX_SUBJECT_LENGTH) throw refuse('token has no valid subject');
  if (typeof workspace !== 'string' || !WORKSPACE_PATTERN.test(workspace)) throw refuse('token has no valid workspace');
  if (scope !== undefined && typeof scope !== 'string') throw refuse('token scope must be a space-separated string');
  return createPrincipal(sub, workspace, scope === undefined ? [] : scope.split(/\s+/).filter(Boolean));
}

function refuse(reason: string): SwitchyardError {
  return new SwitchyardError('unauthenticated', reason, [{ reason }]);
}
