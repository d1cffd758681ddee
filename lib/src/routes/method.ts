import { invalidArgument } from '../errors.js';

/** The methods a route may bind. Anything else (TRACE, CONNECT, custom verbs) is refused. */
export const HTTP_METHODS = Object.freeze(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const);
export type HttpMethod = (typeof HTTP_METHODS)[number];

const KNOWN: ReadonlySet<string> = new Set(HTTP_METHODS);

/** The upper-case method for any spelling (`get`, `Get`), or undefined when it is not one we allow. */
export function normalizeMethod(value: string): HttpMethod | undefined {
  // ASCII only: Unicode case mapping would turn "poſt" into "POST".
  if (value.length > 7 || !/^[A-Za-z]+$/.test(value)) return undefined;
  const upper = value.toUpperCase();
  return KNOWN.has(upper) ? (upper as HttpMethod) : undefined;
}

/**
 * Validates a method from untrusted input: case-insensitive in, upper-case out.
 * No trimming: " GET" is refused, so what is stored is exactly what was meant.
 */
export function parseMethod(value: unknown, field = 'method'): HttpMethod {
  if (typeof value !== 'string') throw invalidArgument(field, 'must be a string');
  const method = normalizeMethod(value);
  if (method === undefined) throw invalidArgument(field, `must be one of ${HTTP_METHODS.join(', ')}`);
  return method;
}
