/**
 * Validation of whole requests from untrusted callers: any field may be missing
 * or of the wrong type. Every bad field is reported in one `invalid_argument`,
 * so a client fixes its request in one round trip.
 */
import { isSwitchyardError, SwitchyardError, type ErrorDetail } from '../errors.js';
import { parseMethod, type HttpMethod } from './method.js';
import { parseHandler, parseMiddleware } from './names.js';
import { parseOwner } from './owner.js';
import { parsePathPattern, type PathPattern } from './path-pattern.js';
import { parseRequestPath } from './request-path.js';

export interface ValidCreateRoute {
  readonly method: HttpMethod;
  readonly pattern: PathPattern;
  readonly middleware: string[];
  readonly handler: string;
  readonly owner: string;
}

export interface ValidMatchRoute {
  readonly method: HttpMethod;
  readonly path: string;
}

export function validateCreateRoute(input: unknown): ValidCreateRoute {
  const fields = asRecord(input);
  const problems: ErrorDetail[] = [];
  const method = collect(problems, parseMethod, fields['method']);
  const pattern = collect(problems, parsePathPattern, fields['path']);
  const middleware = collect(problems, parseMiddleware, fields['middleware']);
  const handler = collect(problems, parseHandler, fields['handler']);
  const owner = collect(problems, parseOwner, fields['owner']);
  if (method === undefined || pattern === undefined || middleware === undefined || handler === undefined || owner === undefined)
    throw refuse('invalid route', problems);
  return { method, pattern, middleware, handler, owner };
}

export function validateMatchRoute(input: unknown): ValidMatchRoute {
  const fields = asRecord(input);
  const problems: ErrorDetail[] = [];
  const method = collect(problems, parseMethod, fields['method']);
  const path = collect(problems, parseRequestPath, fields['path']);
  if (method === undefined || path === undefined) throw refuse('invalid match request', problems);
  return { method, path };
}

function asRecord(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SwitchyardError('invalid_argument', 'request must be an object', [{ reason: 'request must be an object' }]);
  }
  return input as Record<string, unknown>;
}

/**
 * Runs one field's parser on its value (its default field name); an `invalid_argument` becomes details, anything
 * else propagates. The parser and value are passed, not a closure made per field: an apply validates 5,000 routes
 * at once (route-apply-5000).
 */
function collect<T>(problems: ErrorDetail[], parse: (value: unknown) => T, value: unknown): T | undefined {
  try {
    return parse(value);
  } catch (error) {
    if (!isSwitchyardError(error) || error.code !== 'invalid_argument') throw error;
    problems.push(...error.details);
    return undefined;
  }
}

function refuse(what: string, problems: readonly ErrorDetail[]): SwitchyardError {
  const summary = problems.map((p) => (p.field ? `${p.field}: ${p.reason}` : p.reason)).join('; ');
  return new SwitchyardError('invalid_argument', `${what}: ${summary}`, problems);
}
