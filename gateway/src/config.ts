import { isIP } from 'node:net';
import { SwitchyardError, type ErrorDetail } from '../../lib/src/errors.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `*` lets any origin call the API (tokens travel in a header, never in cookies); a list allows exactly those origins. */
export type CorsOrigins = '*' | readonly string[];

/** Everything the gateway reads from its environment, validated and frozen. */
export interface GatewayConfig {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Where the gRPC service is (`http://host:port`); required when the gateway runs alone. */
  readonly serviceUrl: string | undefined;
  /** CDN_URL without a trailing slash; unset means `http://HOST:<bound port>/files` (see `resolveCdnUrl`). */
  readonly cdnUrl: string | undefined;
  readonly maxUploadBytes: number;
  readonly jsonBodyLimitBytes: number;
  readonly corsOrigins: CorsOrigins;
  readonly logLevel: LogLevel;
  /** Protections against slow and greedy clients. */
  readonly clientLimits: ClientLimits;
}

/** How long clients may take and how many may be served at once (one gateway process). */
export interface ClientLimits {
  /** HEADERS_TIMEOUT_MS: time to send the request line and headers; then 408 and the connection is closed. */
  readonly headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: time to send a whole request, body included; 0 for none. Responses (downloads) are not counted. */
  readonly requestTimeoutMs: number;
  /** BODY_IDLE_TIMEOUT_MS: time a request body may go without a byte while the gateway waits for one; 0 for none. */
  readonly bodyIdleTimeoutMs: number;
  /** MAX_CONNECTIONS: open client connections; a connection beyond it is answered 503 with Retry-After and closed. */
  readonly maxConnections: number;
  /** MAX_INFLIGHT_UPLOADS: uploads and replaces streaming at once; one beyond it is answered 503 with Retry-After. */
  readonly maxInflightUploads: number;
}

export const GATEWAY_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  maxUploadBytes: 104_857_600,
  jsonBodyLimitBytes: 65_536,
  corsOrigins: '*' as CorsOrigins,
  logLevel: 'info' as LogLevel,
  filesPath: '/files',
  clientLimits: Object.freeze({
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 900_000,
    bodyIdleTimeoutMs: 30_000,
    maxConnections: 1024,
    maxInflightUploads: 256,
  } satisfies ClientLimits),
});

/**
 * Reads the gateway's variables (CONTRACT.md plus CORS_ORIGINS and
 * JSON_BODY_LIMIT_BYTES) once. Every problem is collected, and one
 * `invalid_argument` error lists them all, each naming its variable. An empty
 * variable counts as unset.
 */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const problems: ErrorDetail[] = [];
  const read = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const refuse = (field: string, value: string, reason: string): undefined => {
    problems.push({ field, reason: `${JSON.stringify(value)} ${reason}` });
    return undefined;
  };
  const parse = <T>(name: string, fallback: T, parser: (raw: string) => T | Refusal): T | undefined => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const result = parser(raw);
    return result instanceof Refusal ? refuse(name, raw, result.reason) : result;
  };

  const host = parse('HOST', GATEWAY_DEFAULTS.host, (raw) => (isIP(raw) !== 0 || HOSTNAME.test(raw) ? raw : no('is not an IP address or host name')));
  const port = parse('PORT', GATEWAY_DEFAULTS.port, (raw) => wholeNumber(raw, 0, 65_535) ?? no('is not a port number (0-65535; 0 picks a free port)'));
  const serviceUrl = parse<string | undefined>('SERVICE_URL', undefined, (raw) => serviceOrigin(raw));
  const cdnUrl = parse<string | undefined>('CDN_URL', undefined, (raw) => cdnBase(raw));
  const maxUploadBytes = parse('MAX_UPLOAD_BYTES', GATEWAY_DEFAULTS.maxUploadBytes, (raw) => wholeNumber(raw, 1) ?? no('is not a positive whole number of bytes'));
  const jsonBodyLimitBytes = parse('JSON_BODY_LIMIT_BYTES', GATEWAY_DEFAULTS.jsonBodyLimitBytes, (raw) => wholeNumber(raw, 2, 16 * 1024 * 1024) ?? no('is not a number of bytes between 2 and 16777216'));
  const corsOrigins = parse('CORS_ORIGINS', GATEWAY_DEFAULTS.corsOrigins, corsList);
  const logLevel = parse('LOG_LEVEL', GATEWAY_DEFAULTS.logLevel, (raw) => LOG_LEVELS.find((level) => level === raw.toLowerCase()) ?? no(`is not a log level (${LOG_LEVELS.join(', ')})`));
  const clientLimits = parseClientLimits(parse);

  if (problems.length > 0) {
    const lines = problems.map((problem) => `  ${problem.field}: ${problem.reason}`).join('\n');
    throw new SwitchyardError('invalid_argument', `invalid configuration:\n${lines}`, problems);
  }
  const config = { host, port, serviceUrl, cdnUrl, maxUploadBytes, jsonBodyLimitBytes, corsOrigins, logLevel, clientLimits: Object.freeze(clientLimits) } as GatewayConfig;
  if (Array.isArray(config.corsOrigins)) Object.freeze(config.corsOrigins);
  return Object.freeze(config);
}

/** The public base of stored files: CDN_URL, or the gateway's own `/files` on the port it is bound to. */
export function resolveCdnUrl(config: Pick<GatewayConfig, 'cdnUrl' | 'host'>, boundPort: number): string {
  return config.cdnUrl ?? `http://${urlHost(dialableHost(config.host))}:${boundPort}${GATEWAY_DEFAULTS.filesPath}`;
}

/**
 * The path under which this gateway serves files: the path of the CDN base, so
 * a CDN in front of the gateway can forward requests unchanged. `''` for a
 * CDN base at the root of its host.
 */
export function filesPathOf(cdnUrl: string): string {
  return new URL(cdnUrl).pathname.replace(/\/+$/, '');
}

/** `[::1]` for IPv6 literals, as URLs need. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** A wildcard bind address is not something to dial; its loopback is. */
export function dialableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

type Parse = <T>(name: string, fallback: T, parser: (raw: string) => T | Refusal) => T | undefined;

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, BODY_IDLE_TIMEOUT_MS, MAX_CONNECTIONS, MAX_INFLIGHT_UPLOADS. */
function parseClientLimits(parse: Parse): ClientLimits {
  const defaults = GATEWAY_DEFAULTS.clientLimits;
  const DAY_MS = 86_400_000;
  const ms = (name: string, fallback: number, min: number) =>
    parse(name, fallback, (raw) => wholeNumber(raw, min, DAY_MS) ?? no(`is not a number of milliseconds between ${min}${min === 0 ? ' (none)' : ''} and ${DAY_MS}`)) ?? fallback;
  const count = (name: string, fallback: number) => parse(name, fallback, (raw) => wholeNumber(raw, 1, 1_000_000) ?? no('is not a whole number between 1 and 1000000')) ?? fallback;
  const requestTimeoutMs = ms('REQUEST_TIMEOUT_MS', defaults.requestTimeoutMs, 0);
  // Node counts the headers inside the whole request's time, so they cannot be given longer than it.
  const headersTimeoutMs =
    parse('HEADERS_TIMEOUT_MS', defaults.headersTimeoutMs, (raw) => {
      const value = wholeNumber(raw, 1, DAY_MS);
      if (value === undefined) return no(`is not a number of milliseconds between 1 and ${DAY_MS}`);
      return requestTimeoutMs !== 0 && value > requestTimeoutMs ? no(`is longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`) : value;
    }) ?? defaults.headersTimeoutMs;
  return {
    headersTimeoutMs: requestTimeoutMs !== 0 ? Math.min(headersTimeoutMs, requestTimeoutMs) : headersTimeoutMs,
    requestTimeoutMs,
    bodyIdleTimeoutMs: ms('BODY_IDLE_TIMEOUT_MS', defaults.bodyIdleTimeoutMs, 0),
    maxConnections: count('MAX_CONNECTIONS', defaults.maxConnections),
    maxInflightUploads: count('MAX_INFLIGHT_UPLOADS', defaults.maxInflightUploads),
  };
}

/** Why a raw value was refused. */
class Refusal {
  constructor(readonly reason: string) {}
}
const no = (reason: string): Refusal => new Refusal(reason);

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const RESERVED_PATHS = ['/v1', '/healthz'];

function wholeNumber(raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  return value >= min && value <= max ? value : undefined;
}

function httpUrl(raw: string): URL | Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no('is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return no('is not an http or https URL');
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) return no('must have no query or fragment');
  if (url.username || url.password) return no('must carry no credentials');
  return url;
}

function serviceOrigin(raw: string): string | Refusal {
  const url = httpUrl(raw);
  if (url instanceof Refusal) return url;
  if (url.pathname !== '/') return no('must be just scheme, host and port (gRPC has no path prefix), e.g. http://127.0.0.1:50051');
  return url.origin;
}

function cdnBase(raw: string): string | Refusal {
  const url = httpUrl(raw);
  if (url instanceof Refusal) return url;
  const path = url.pathname.replace(/\/+$/, '');
  if (RESERVED_PATHS.some((reserved) => path === reserved || path.startsWith(`${reserved}/`))) {
    return no(`has a path that collides with the gateway's own ${path.startsWith('/v1') ? '/v1 API' : '/healthz'}`);
  }
  return url.href.replace(/\/+$/, '');
}

function corsList(raw: string): CorsOrigins | Refusal {
  if (raw.trim() === '*') return '*';
  const origins: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const url = httpUrl(entry);
    if (url instanceof Refusal || url.origin !== entry.replace(/\/$/, '')) {
      return no(`is not "*" or a comma-separated list of origins such as https://app.example.com (no paths); ${JSON.stringify(entry)} is not an origin`);
    }
    origins.push(url.origin);
  }
  return origins.length > 0 ? origins : no('lists no origin');
}
