/**
 * Concrete request paths given to `match` (not patterns): what an HTTP server
 * would see as the path part of a request target, percent-encoded.
 *
 * Refused (`invalid_argument` on `path`): a non-string, no leading "/", more than
 * 4096 characters, a query or fragment ("?", "#": pass the path only), spaces or
 * control characters (a request target cannot hold them raw), and malformed
 * percent-encoding. Empty segments and trailing slashes are allowed: they are
 * valid paths that simply match fewer routes.
 */
import { invalidArgument } from '../errors.js';

export const MAX_REQUEST_PATH_LENGTH = 4096;

export function parseRequestPath(value: unknown, field = 'path'): string {
  if (typeof value !== 'string') throw invalidArgument(field, 'must be a string');
  if (value.length > MAX_REQUEST_PATH_LENGTH) throw invalidArgument(field, `must be at most ${MAX_REQUEST_PATH_LENGTH} characters`);
  if (!value.startsWith('/')) throw invalidArgument(field, 'must start with "/"');
  if (value.includes('?') || value.includes('#')) throw invalidArgument(field, 'must not contain a query ("?") or fragment ("#")');
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) throw invalidArgument(field, 'must not contain spaces or control characters');
  }
  if (value.includes('%')) {
    for (const segment of value.split('/')) {
      try {
        decodeURIComponent(segment);
      } catch {
        throw invalidArgument(field, 'malformed percent-encoding');
      }
    }
  }
  return value;
}
