import { createHash } from 'node:crypto';
import { invalidArgument } from './errors.js';

/** Cursor pages everywhere (v1): 50 by default, 1 to 1000. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export function pageSizeOf(size: number | undefined): number {
  if (size === undefined || size === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw invalidArgument('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

/** What a token is only valid for (a workspace, a listing's filters), as a short hash. */
export function bindingOf(...scope: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 16);
}

/**
 * An opaque page token: a version, the cursor's fields (no `.` in them) and
 * the binding, base64url. Not signed: a forged cursor only moves a listing the
 * caller may read anyway, and the binding keeps it to its own listing.
 */
export function encodePageToken(cursor: readonly string[], binding: string): string {
  return Buffer.from(['1', ...cursor, binding].join('.')).toString('base64url');
}

/** The cursor fields of a token made for `binding`; `invalid_argument` for anything else. */
export function decodePageToken(token: string, binding: string, fields: number): string[] {
  const [version, ...rest] = Buffer.from(token, 'base64url').toString('utf8').split('.');
  const boundTo = rest.pop();
  if (version !== '1' || rest.length !== fields || boundTo === undefined)
    throw invalidArgument('pageToken', 'is not a page token of this listing');
  if (boundTo !== binding)
    throw invalidArgument('pageToken', 'was made for another workspace or other filters; list again from the first page');
  return rest;
}
