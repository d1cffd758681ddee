// Schemas of the kinds of values Switchyard's variables hold, and the
// variables both apps read. Each refusal reads after the quoted value:
// `PORT: "70000" is not a port number (0-65535; 0 picks a free port)`.
import { isIP } from 'node:net';
import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from '../logger.js';
import { shownAs } from './env-schema.js';

/** A value from its raw string, or the reason it is refused. */
export function rule<T>(parse: (raw: string) => T | undefined, reason: string | ((raw: string) => string)) {
  return z.string().transform((raw, ctx): T => {
    const value = parse(raw);
    if (value !== undefined) return value;
    ctx.addIssue({ code: 'custom', message: typeof reason === 'string' ? reason : reason(raw) });
    return z.NEVER;
  });
}

/** A rule whose parse says why it refuses (a `Refusal`), for values refused for several reasons. */
export function reasonedRule<T>(parse: (raw: string) => T | Refusal) {
  return z.string().transform((raw, ctx): T => {
    const value = parse(raw);
    if (!(value instanceof Refusal)) return value;
    ctx.addIssue({ code: 'custom', message: value.reason });
    return z.NEVER;
  });
}

export class Refusal {
  constructor(readonly reason: string) {}
}
export const no = (reason: string): Refusal => new Refusal(reason);

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function wholeNumber(raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  return value >= min && value <= max ? value : undefined;
}

/** A whole number between `min` and `max`, `fallback` when unset. */
export const wholeNumberVariable = (fallback: number, min: number, max: number, reason: string) =>
  rule((raw) => wholeNumber(raw, min, max), reason)
    .optional()
    .default(fallback);

export const hostVariable = (fallback: string) =>
  rule((raw) => (isIP(raw) !== 0 || HOSTNAME.test(raw) ? raw : undefined), 'is not an IP address or host name')
    .optional()
    .default(fallback);

export const portVariable = (fallback: number) =>
  wholeNumberVariable(fallback, 0, 65_535, 'is not a port number (0-65535; 0 picks a free port)');

export const byteCountVariable = (fallback: number) =>
  wholeNumberVariable(fallback, 1, Number.MAX_SAFE_INTEGER, 'is not a positive whole number of bytes');

export const logLevelVariable = (fallback: LogLevel) =>
  rule((raw) => LOG_LEVELS.find((level) => level === raw.toLowerCase()), `is not a log level (${LOG_LEVELS.join(', ')})`)
    .optional()
    .default(fallback);

/** An absolute http(s) URL without query, fragment or credentials. */
export function httpUrl(raw: string): URL | Refusal {
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

/** An http(s) URL, without a trailing slash. */
export const httpUrlVariable = () =>
  reasonedRule((raw) => {
    const url = httpUrl(raw);
    return url instanceof Refusal ? url : url.href.replace(/\/+$/, '');
  }).optional();

/** A secret of at least `minLength` characters, never shown in a refusal. */
export const secretVariable = (minLength: number, reason: string) =>
  shownAs(rule((raw) => (raw.length >= minLength ? raw : undefined), reason).optional(), () => undefined);

/** Where /metrics is served: a port (0 picks a free one, printed at start), or `off`. */
export type MetricsPort = number | 'off';

export const metricsPortVariable = (fallback: MetricsPort) =>
  rule<MetricsPort>(
    (raw) => (raw.trim().toLowerCase() === 'off' ? 'off' : wholeNumber(raw, 0, 65_535)),
    'is not a port number (0-65535; 0 picks a free port) or off',
  )
    .optional()
    .default(fallback);

/** The variables that mean the same to both apps; `switchyard start` reads each once. */
/** Where changes fan out between instances (EVENTS_URL): the broker's kind and URL. */
export type EventsConfig = { readonly kind: 'redis'; readonly url: string } | { readonly kind: 'nats'; readonly url: string };

export function isRedisUrl(url: string): boolean {
  return url.startsWith('redis:') || url.startsWith('rediss:');
}

/** EVENTS_URL as parsed, or none. */
export function eventsConfigFrom(url: string | undefined): EventsConfig | undefined {
  return url === undefined ? undefined : { kind: isRedisUrl(url) ? 'redis' : 'nats', url };
}

/** A broker URL of one of `protocols` naming a host, or why not. */
export function brokerUrl(raw: string, protocols: readonly string[], expected: string): string | Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no(`is not a URL (expected ${expected})`);
  }
  if (!protocols.includes(url.protocol)) return no(`is not ${expected}`);
  if (!url.hostname) return no('names no host');
  return raw;
}

export const SHARED_VARIABLES = Object.freeze({
  HOST: hostVariable('127.0.0.1'),
  PORT: portVariable(8080),
  MAX_UPLOAD_BYTES: byteCountVariable(104_857_600),
  LOG_LEVEL: logLevelVariable('info'),
  METRICS_PORT: metricsPortVariable(9464),
  // OpenTelemetry's own variables: spans are exported over OTLP/HTTP when an endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrlVariable(),
  OTEL_SERVICE_NAME: rule(
    (raw) => (/^[\x21-\x7e]{1,128}$/.test(raw) ? raw : undefined),
    'is not a service name (1-128 printable ASCII characters, no spaces)',
  ).optional(),
  EVENTS_URL: shownAs(
    reasonedRule((raw) => brokerUrl(raw, ['redis:', 'rediss:', 'nats:', 'tls:'], 'a redis://, rediss:// or nats:// URL')).optional(),
    redactUrlPassword,
  ),
});

/** A URL as refusals may show it: never with its password (`mysql://user:***@host/db`). */
export function redactUrlPassword(raw: string): string {
  return raw.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}
