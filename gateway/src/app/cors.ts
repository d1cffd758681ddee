import type { FastifyCorsOptions } from '@fastify/cors';
import { cors as connectCors } from '@connectrpc/connect';
import type { CorsOrigins } from '../config.js';
import { SERVICE_ERROR_DETAILS_KEY, SERVICE_RETRY_AFTER_MS_KEY } from '../http/api-error.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';

const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** What tus clients send and read (tus-js-client, Uppy). */
const TUS_REQUEST_HEADERS = [
  'tus-resumable',
  'upload-length',
  'upload-offset',
  'upload-metadata',
  'upload-defer-length',
  'upload-concat',
  'upload-checksum',
  'x-requested-with',
];
const TUS_RESPONSE_HEADERS = [
  'tus-resumable',
  'tus-version',
  'tus-extension',
  'tus-max-size',
  'tus-checksum-algorithm',
  'upload-offset',
  'upload-length',
  'upload-metadata',
  'upload-defer-length',
  'upload-concat',
  'upload-expires',
  'switchyard-asset-id',
];
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
  ...TUS_REQUEST_HEADERS,
  ...connectCors.allowedHeaders.map((name) => name.toLowerCase()),
].filter((name, index, all) => all.indexOf(name) === index);
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
  ...TUS_RESPONSE_HEADERS,
  ...connectCors.exposedHeaders.map((name) => name.toLowerCase()),
].filter((name, index, all) => all.indexOf(name) === index);
/** Browsers may reuse a preflight answer for two hours (Chromium's cap). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * CORS for browser clients (@fastify/cors). Tokens travel in the
 * Authorization header, never in cookies, so credentials are never allowed
 * and `*` exposes nothing a page could not already send. With a list of
 * origins, another origin gets no Access-Control-Allow-Origin, which the
 * browser treats as a refusal. Any OPTIONS is answered as a preflight (204):
 * a strict 400 for one without the preflight headers would not be in the
 * contract's error shape, and the answer grants nothing.
 */
export function corsOptions(origins: CorsOrigins): FastifyCorsOptions {
  return {
    origin: origins === '*' ? '*' : [...origins],
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    strictPreflight: false,
    optionsSuccessStatus: 204,
  };
}

/**
 * What @fastify/cors, configured by `corsOptions(origins)`, puts on the answer
 * to a request without Origin (a CDN's or an `<img>`'s): `Vary: Origin` for a
 * list, `*` allowed for `*`, the exposed headers always. For answers made
 * outside Fastify (files/revalidation-lane.ts); a test compares the two.
 */
export function corsHeadersWithoutOrigin(origins: CorsOrigins): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (origins !== '*') headers['vary'] = 'Origin';
  if (origins === '*' || origins.includes('*')) headers['access-control-allow-origin'] = '*';
  headers['access-control-expose-headers'] = EXPOSED_HEADERS.join(', ');
  return Object.freeze(headers);
}
