import type { IncomingMessage, ServerResponse } from 'node:http';
import { cors as connectCors } from '@connectrpc/connect';
import type { CorsOrigins } from '../config.js';
import { SERVICE_ERROR_DETAILS_KEY, SERVICE_RETRY_AFTER_MS_KEY } from './api-error.js';
import { REQUEST_ID_HEADER } from './request-id.js';

const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'].join(', ');
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  REQUEST_ID_HEADER,
  'range',
  'if-none-match',
  'if-modified-since',
  'if-range',
  'if-match',
  'if-unmodified-since',
  ...connectCors.allowedHeaders.map((name) => name.toLowerCase()),
]
  .filter((name, index, all) => all.indexOf(name) === index)
  .join(', ');
const EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  'location',
  'etag',
  'last-modified',
  'content-range',
  'content-length',
  'content-disposition',
  'accept-ranges',
  'retry-after',
  // The service's error details and retry hint, relayed to Connect clients as
  // headers (unary errors: trailers become `trailer-` headers) and to gRPC-Web in the body.
  SERVICE_ERROR_DETAILS_KEY,
  `trailer-${SERVICE_ERROR_DETAILS_KEY}`,
  SERVICE_RETRY_AFTER_MS_KEY,
  `trailer-${SERVICE_RETRY_AFTER_MS_KEY}`,
  ...connectCors.exposedHeaders.map((name) => name.toLowerCase()),
]
  .filter((name, index, all) => all.indexOf(name) === index)
  .join(', ');
/** Browsers may reuse a preflight answer for two hours (Chromium's cap). */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

export interface Cors {
  /** Adds the CORS headers an allowed origin needs to any response. */
  decorate(req: IncomingMessage, res: ServerResponse): void;
  /** Answers a preflight (204) and returns true; returns false for other requests. */
  preflight(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * CORS for browser clients. Tokens travel in the Authorization header, never
 * in cookies, so credentials are never allowed and `*` exposes nothing a page
 * could not already send. A preflight from an origin not on the list gets a 204
 * without allow headers, which the browser treats as a refusal.
 */
export function createCors(origins: CorsOrigins): Cors {
  const allowedOrigin = (req: IncomingMessage): string | undefined => {
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    if (origins === '*') return '*';
    return origins.includes(origin) ? origin : undefined;
  };
  const vary = (res: ServerResponse): void => {
    if (origins !== '*') res.appendHeader('vary', 'Origin');
  };

  return {
    decorate(req, res) {
      vary(res);
      const origin = allowedOrigin(req);
      if (origin === undefined) return;
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    },
    preflight(req, res) {
      if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
      vary(res);
      const origin = allowedOrigin(req);
      if (origin !== undefined) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
        res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
        res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      }
      res.writeHead(204, { 'content-length': '0' });
      res.end();
      return true;
    },
  };
}
