import type { ServerResponse } from 'node:http';
import type { ApiError } from './api-error.js';
import { bearerChallenge } from './authorization.js';
import { lingerAfterEarlyResponse } from './early-close.js';

export type Headers = Readonly<Record<string, string | number | readonly string[]>>;

/**
 * API responses are per caller: never stored by shared caches. nosniff: an
 * error body may echo a path, and the files path shares the origin with
 * uploaded content, so no browser may take a JSON body for anything else.
 */
const API_HEADERS = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  // The client is gone (an upload it abandoned): nobody to answer.
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  lingerAfterEarlyResponse(res.req, res);
  res.writeHead(status, { ...API_HEADERS, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Sends the contract's error body. When a response has already begun (a file
 * half sent), there is no honest way to report an error but to cut the
 * connection, so the client sees a truncated body instead of a wrong one.
 */
export function sendError(res: ServerResponse, error: ApiError, headers: Headers = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const extra: Record<string, string | number> = {};
  if (error.retryAfterSeconds !== undefined) extra['retry-after'] = error.retryAfterSeconds;
  // A 401 names the scheme to authenticate with (RFC 9110 §11.6.1).
  if (error.status === 401) extra['www-authenticate'] = bearerChallenge(res.req);
  sendJson(res, error.status, error.body(), { ...extra, ...headers });
}

/**
 * Whether a response has been answered or torn down by someone other than its
 * handler (a request that turned out malformed mid-way is answered 400 by the
 * server's client-error handler while the handler is still waiting on the
 * service): the handler must then write nothing more.
 */
export function isSettled(res: ServerResponse): boolean {
  return res.headersSent || res.writableEnded || res.destroyed;
}
