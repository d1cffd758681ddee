import type { IncomingMessage } from 'node:http';

/** Validators of the file a request is about. */
export interface Validators {
  /** Quoted, as sent in ETag. */
  readonly etag: string;
  readonly lastModified: Date;
}

/**
 * True when the request's preconditions on the current file fail, so it must be
 * answered 412 (RFC 9110 §13.1.1, §13.1.4, evaluated in the order of §13.2.2):
 * If-Match, compared strongly, decides when present; If-Unmodified-Since counts
 * only without it, and an invalid date is ignored.
 */
export function preconditionFails(req: IncomingMessage, validators: Validators): boolean {
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) return !etagListMatches(ifMatch, validators.etag, 'strong');
  const ifUnmodifiedSince = req.headers['if-unmodified-since'];
  if (ifUnmodifiedSince === undefined) return false;
  const since = Date.parse(ifUnmodifiedSince);
  return Number.isFinite(since) && wholeSeconds(validators.lastModified) > since;
}

/**
 * True when a GET or HEAD may be answered 304 Not Modified (RFC 9110 §13.2.2):
 * If-None-Match, compared weakly, decides when present; If-Modified-Since
 * counts only without it. Not the `fresh` package: it answers "stale" to any
 * request with `Cache-Control: no-cache`, a rule for caches, and fetch() adds
 * exactly that header whenever a script sets If-None-Match itself, so every
 * such revalidation would download the whole file again (test/rest/files).
 */
export function isNotModified(req: IncomingMessage, validators: Validators): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagListMatches(ifNoneMatch, validators.etag, 'weak');
  const ifModifiedSince = req.headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && wholeSeconds(validators.lastModified) <= since;
}

/**
 * True when a Range may be honoured: without If-Range, or when If-Range names
 * the current file, by strong ETag or by its exact Last-Modified date.
 */
export function rangeStillValid(req: IncomingMessage, validators: Validators): boolean {
  const ifRange = req.headers['if-range'];
  if (ifRange === undefined) return true;
  const value = String(ifRange).trim();
  if (value.startsWith('"') || value.startsWith('W/')) return etagListMatches(value, validators.etag, 'strong');
  const date = Date.parse(value);
  return Number.isFinite(date) && date === wholeSeconds(validators.lastModified);
}

/** Whether a request can only be answered once the file's validators or size are known. */
export function needsValidators(req: IncomingMessage): boolean {
  const { headers } = req;
  return (
    headers['if-match'] !== undefined ||
    headers['if-unmodified-since'] !== undefined ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    headers['if-range'] !== undefined
  );
}

function etagListMatches(list: string, etag: string, comparison: 'weak' | 'strong'): boolean {
  if (list.trim() === '*') return true;
  return list.split(',').some((candidate) => {
    const tag = candidate.trim();
    if (tag.startsWith('W/')) return comparison === 'weak' && tag.slice(2) === etag;
    return tag === etag;
  });
}

/** HTTP dates have whole seconds. */
function wholeSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000) * 1000;
}
