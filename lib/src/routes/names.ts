/**
 * Middleware and handler names: what a router would look up in its registry,
 * so they look like code identifiers, optionally namespaced.
 *
 *   name = word *( ("." | ":" | "-") word )    at most 64 characters
 *   word = [A-Za-z0-9_]+, and the first character of the name is [A-Za-z_]
 *
 * Accepted: `auth`, `auth.jwt`, `rate-limit`, `users:list`, `Users.getById`, `_internal`.
 * Refused: empty, a leading digit or separator, a trailing or doubled separator,
 * spaces, slashes and anything else. Names are case-sensitive and never trimmed.
 *
 * Middleware is optional (missing or null means none), at most 32 entries, and a
 * name may appear only once: running one middleware twice on a route is almost
 * always a copy-paste slip, and a caller who truly wants it can wrap it.
 */
import { invalidArgument, SwitchyardError, type ErrorDetail } from '../errors.js';

export const MAX_NAME_LENGTH = 64;
export const MAX_MIDDLEWARE = 32;
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(?:[.:-][A-Za-z0-9_]+)*$/;

/** Why a value is not a valid name, or undefined when it is one. */
export function nameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (!NAME_PATTERN.test(value)) return 'must be an identifier, optionally joined by ".", ":" or "-" (e.g. auth.jwt, rate-limit)';
  return undefined;
}

export function parseHandler(value: unknown, field = 'handler'): string {
  const problem = nameProblem(value);
  if (problem !== undefined) throw invalidArgument(field, problem);
  return value as string;
}

/** Validates the whole list and reports every bad entry (`middleware[3]`), not just the first. */
export function parseMiddleware(value: unknown, field = 'middleware'): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidArgument(field, 'must be an array of names');
  if (value.length > MAX_MIDDLEWARE) throw invalidArgument(field, `must have at most ${MAX_MIDDLEWARE} entries`);
  const problems: ErrorDetail[] = [];
  const firstIndex = new Map<string, number>();
  // A plain index loop: holes in a sparse array are undefined entries, refused below.
  for (let index = 0; index < value.length; index++) {
    const name: unknown = value[index];
    const problem = nameProblem(name) ?? duplicateProblem(firstIndex, name as string, index, field);
    if (problem !== undefined) problems.push({ field: `${field}[${index}]`, reason: problem });
  }
  if (problems.length > 0) {
    throw new SwitchyardError('invalid_argument', problems.map((p) => `${p.field}: ${p.reason}`).join('; '), problems);
  }
  return value.slice() as string[];
}

function duplicateProblem(firstIndex: Map<string, number>, name: string, index: number, field: string): string | undefined {
  const earlier = firstIndex.get(name);
  if (earlier !== undefined) return `duplicate of ${field}[${earlier}]`;
  firstIndex.set(name, index);
  return undefined;
}
