/**
 * Route path patterns: parsing, validation and the duplicate-detecting shape.
 *
 * Grammar (also in README.md beside this file):
 *
 *   pattern   = "/" | 1*( "/" segment )            at most 1024 characters, 32 segments
 *   segment   = static | param | wildcard
 *   static    = 1*( unreserved | "%" HEX HEX )     unreserved = A-Z a-z 0-9 . _ ~ -
 *   param     = ":" name                          name = [A-Za-z_][A-Za-z0-9_]{0,63}, not "__proto__"
 *   wildcard  = "*"                               only as the last segment
 *
 * - A parameter or wildcard is a whole segment: no `/files/:name.:ext`, no `/a*`.
 * - No empty segments (`//`) and no trailing slash: "/users/" is refused, not
 *   silently rewritten, so what is stored is what will match. "/" alone is fine.
 * - Parameter names are unique within a pattern (case-sensitive).
 * - Percent-encoding is allowed in static segments for characters outside the
 *   unreserved set (e.g. `/caf%C3%A9`); it must decode to UTF-8, and must not
 *   decode to "/" (ambiguous with a separator), a control character, "." or "..".
 * - Static segments compare by their decoded text and are case-sensitive.
 *
 * The shape erases parameter names (`/users/:id` → `/users/:`) and writes static
 * segments in one canonical encoding (`%41` → `A`, `%c3%a9` → `%C3%A9`), so two
 * patterns that match the same requests have the same shape.
 */
import { invalidArgument } from '../errors.js';

export const MAX_PATTERN_LENGTH = 1024;
export const MAX_PATTERN_SEGMENTS = 32;
export const PARAM_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export type PatternSegment =
  | { readonly kind: 'static' /** Decoded text. */; readonly value: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'wildcard' };

export interface PathPattern {
  /** The pattern as written. */
  readonly source: string;
  /** Empty for "/". */
  readonly segments: readonly PatternSegment[];
  readonly shape: string;
  /** Parameter names in path order (the wildcard is not one of them). */
  readonly paramNames: readonly string[];
  readonly hasWildcard: boolean;
}

const STATIC_SEGMENT = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Parses and validates a pattern from untrusted input; every refusal is `invalid_argument` on `field`. */
export function parsePathPattern(value: unknown, field = 'path'): PathPattern {
  const refuse = (reason: string) => invalidArgument(field, reason);
  if (typeof value !== 'string') throw refuse('must be a string');
  if (value.length > MAX_PATTERN_LENGTH) throw refuse(`must be at most ${MAX_PATTERN_LENGTH} characters`);
  if (!value.startsWith('/')) throw refuse('must start with "/"');
  if (value === '/') return Object.freeze({ source: value, segments: [], shape: '/', paramNames: [], hasWildcard: false });
  if (value.includes('?') || value.includes('#')) throw refuse('must not contain a query ("?") or fragment ("#")');
  if (value.endsWith('/')) throw refuse('must not end with "/"');

  const raw = value.slice(1).split('/');
  if (raw.length > MAX_PATTERN_SEGMENTS) throw refuse(`must have at most ${MAX_PATTERN_SEGMENTS} segments`);
  // A plain loop, the shape built as it goes, and a segment's name for an error made only for the error: an
  // apply validates 5,000 patterns at once (route-apply-5000).
  const segments: PatternSegment[] = [];
  const paramNames: string[] = [];
  let shape = '';
  for (let index = 0; index < raw.length; index++) {
    const text = raw[index]!;
    if (text === '') throw refuse(`segment ${index + 1} is empty ("//")`);
    if (text === '*') {
      if (index !== raw.length - 1) throw refuse('the wildcard "*" is only allowed as the last segment');
      segments.push({ kind: 'wildcard' });
      shape += '/*';
    } else if (text.charCodeAt(0) === COLON) {
      const name = text.slice(1);
      if (!PARAM_NAME_PATTERN.test(name))
        throw segmentError(field, index, `parameter name "${name}" must match [A-Za-z_][A-Za-z0-9_]{0,63}`);
      if (name === '__proto__') throw segmentError(field, index, 'parameter name "__proto__" is reserved');
      if (paramNames.includes(name)) throw segmentError(field, index, `parameter name "${name}" is repeated`);
      paramNames.push(name);
      segments.push({ kind: 'param', name });
      shape += '/:';
    } else {
      const decoded = decodeStaticSegment(text, field, index);
      segments.push({ kind: 'static', value: decoded });
      shape += '/' + canonicalEncoding(decoded);
    }
  }
  return Object.freeze({
    source: value,
    segments: Object.freeze(segments),
    shape,
    paramNames: Object.freeze(paramNames),
    hasWildcard: segments.at(-1)?.kind === 'wildcard',
  });
}

const COLON = 0x3a;

function segmentError(field: string, index: number, reason: string): Error {
  return invalidArgument(field, `segment ${index + 1}: ${reason}`);
}

function decodeStaticSegment(text: string, field: string, index: number): string {
  if (!STATIC_SEGMENT.test(text)) {
    if (/%(?![0-9A-Fa-f]{2})/.test(text))
      throw segmentError(field, index, 'malformed percent-encoding ("%" must be followed by two hex digits)');
    const bad = [...text].find((c) => !/[A-Za-z0-9._~%-]/.test(c)) ?? '';
    throw segmentError(field, index, `character ${JSON.stringify(bad)} is not allowed (use A-Z a-z 0-9 . _ ~ - or %XX)`);
  }
  if (text === '.' || text === '..') throw segmentError(field, index, '"." and ".." are not allowed');
  if (!text.includes('%')) return text;
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    throw segmentError(field, index, 'percent-encoding is not valid UTF-8');
  }
  if (decoded.includes('/')) throw segmentError(field, index, 'an encoded "/" (%2F) is not allowed');
  if (CONTROL_CHARACTER.test(decoded)) throw segmentError(field, index, 'an encoded control character is not allowed');
  if (decoded === '.' || decoded === '..') throw segmentError(field, index, '"." and ".." are not allowed');
  return decoded;
}

/** Text that is its own canonical encoding: encodeURIComponent leaves these characters alone. */
const UNRESERVED_ONLY = /^[A-Za-z0-9._~-]*$/;

/** Unreserved characters literal, everything else %XX with upper-case hex. */
function canonicalEncoding(decoded: string): string {
  // Most segments (every one without "%") need no encoding: one test, not an encoding and a replace per segment of every route.
  if (UNRESERVED_ONLY.test(decoded)) return decoded;
  return encodeURIComponent(decoded).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
