import type { ErrorDetail } from '@switchyard/core';
import { ApiError } from '../http/api-error.js';

export interface CreateRouteBody {
  readonly method: string;
  readonly path: string;
  readonly middleware: readonly string[];
  readonly handler: string;
}

const FIELDS = new Set(['method', 'path', 'middleware', 'handler']);
const ASSIGNED = new Set(['id', 'createdAt']);

/**
 * Checks the shape of a create-route body: the fields of the spec with their
 * JSON types, nothing else (a misspelt `middlewares` is refused, not dropped).
 * The grammar of each value is the service's to judge. Every problem is listed.
 */
export function parseCreateRouteBody(body: Record<string, unknown>): CreateRouteBody {
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(body)) {
    if (ASSIGNED.has(key)) problems.push({ field: key, reason: 'is assigned by the service; leave it out' });
    else if (!FIELDS.has(key)) problems.push({ field: key, reason: 'is not a field of a route (method, path, middleware, handler)' });
  }
  const text = (field: 'method' | 'path' | 'handler'): string => {
    const value = body[field];
    if (value === undefined) problems.push({ field, reason: 'is required' });
    else if (typeof value !== 'string') problems.push({ field, reason: 'must be a string' });
    return typeof value === 'string' ? value : '';
  };
  const method = text('method');
  const path = text('path');
  const handler = text('handler');
  const middleware = Object.hasOwn(body, 'middleware') ? body['middleware'] : [];
  if (!Array.isArray(middleware) || !middleware.every((name) => typeof name === 'string')) {
    problems.push({ field: 'middleware', reason: 'must be an array of strings' });
  }
  if (problems.length > 0) {
    const summary = problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    throw new ApiError('invalid_argument', summary, problems);
  }
  return { method, path, handler, middleware: middleware as string[] };
}
