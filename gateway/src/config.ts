import { isIP } from 'node:net';
import {
  deepFreeze,
  envSchema,
  eventsConfigFrom,
  type EventsConfig,
  httpUrl,
  no,
  parseEnv,
  reasonedRule,
  Refusal,
  rule,
  SHARED_VARIABLES,
  type MetricsPort,
  type TracesConfig,
  wholeNumber,
  wholeNumberVariable,
  type EnvValues,
  type LogLevel,
} from '@switchyard/runtime';
import { formatServiceTargets, parseServiceTargets } from './service/address-list.js';

/** `*` lets any origin call the API (tokens travel in a header, never in cookies); a list allows exactly those origins. */
export type CorsOrigins = '*' | readonly string[];

/** Everything the gateway reads from its environment, validated and frozen. */
export interface GatewayConfig {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Where the gRPC service is: one or more comma-separated `http://host:port` (service/address-list.ts); required when the gateway runs alone. */
  readonly serviceUrl: string | undefined;
  /** CDN_URL without a trailing slash; unset means `http://HOST:<bound port>/files` (see `resolveCdnUrl`). */
  readonly cdnUrl: string | undefined;
  readonly maxUploadBytes: number;
  readonly jsonBodyLimitBytes: number;
  readonly corsOrigins: CorsOrigins;
  readonly logLevel: LogLevel;
  /** METRICS_PORT: where the `gateway` command serves /metrics (`off`: nowhere). */
  readonly metricsPort: MetricsPort;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME: where spans go (nowhere when unset) and as which service. */
  readonly traces: TracesConfig;
  /** EVENTS_URL: the broker whose asset changes a gateway in front of services follows (files/validator-broker.ts); none: the validators' TTL bounds what other instances change. */
  readonly events: EventsConfig | undefined;
  /** Protections against slow and greedy clients. */
  readonly clientLimits: ClientLimits;
  /** TRUST_PROXY: the gateway is behind a proxy whose X-Forwarded-Proto and X-Forwarded-Host name the public origin (tus `Location` urls). */
  readonly trustProxy: boolean;
  /** CONSOLE: serve the web console at /console/ (`on`, the default) or not (`off`). */
  readonly console: boolean;
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
  // Not unnecessary: they widen the literals, so the exported defaults have the options' types.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  corsOrigins: '*' as CorsOrigins,
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
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

const DAY_MS = 86_400_000;
const BOOLEAN_WORDS = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);
const SWITCH_WORDS = new Map([['on', true], ['off', false], ...BOOLEAN_WORDS]);
const limits = GATEWAY_DEFAULTS.clientLimits;
const milliseconds = (fallback: number, min: number) =>
  wholeNumberVariable(fallback, min, DAY_MS, `is not a number of milliseconds between ${min}${min === 0 ? ' (none)' : ''} and ${DAY_MS}`);
const count = (fallback: number) => wholeNumberVariable(fallback, 1, 1_000_000, 'is not a whole number between 1 and 1000000');

/** The gateway's variables (docs/configuration.md, described in config-docs.ts), in the order refusals list them. */
export const gatewayEnv = envSchema(
  {
    HOST: SHARED_VARIABLES.HOST,
    PORT: SHARED_VARIABLES.PORT,
    SERVICE_URL: reasonedRule(serviceOrigins).optional(),
    CDN_URL: reasonedRule(cdnBase).optional(),
    MAX_UPLOAD_BYTES: SHARED_VARIABLES.MAX_UPLOAD_BYTES,
    JSON_BODY_LIMIT_BYTES: wholeNumberVariable(
      GATEWAY_DEFAULTS.jsonBodyLimitBytes,
      2,
      16 * 1024 * 1024,
      'is not a number of bytes between 2 and 16777216',
    ),
    CORS_ORIGINS: reasonedRule(corsList).optional().default(GATEWAY_DEFAULTS.corsOrigins),
    LOG_LEVEL: SHARED_VARIABLES.LOG_LEVEL,
    METRICS_PORT: SHARED_VARIABLES.METRICS_PORT,
    OTEL_EXPORTER_OTLP_ENDPOINT: SHARED_VARIABLES.OTEL_EXPORTER_OTLP_ENDPOINT,
    OTEL_SERVICE_NAME: SHARED_VARIABLES.OTEL_SERVICE_NAME,
    EVENTS_URL: SHARED_VARIABLES.EVENTS_URL,
    REQUEST_TIMEOUT_MS: milliseconds(limits.requestTimeoutMs, 0),
    // Its default shrinks to a shorter REQUEST_TIMEOUT_MS; set explicitly, it may not exceed it.
    HEADERS_TIMEOUT_MS: rule((raw) => wholeNumber(raw, 1, DAY_MS), `is not a number of milliseconds between 1 and ${DAY_MS}`).optional(),
    BODY_IDLE_TIMEOUT_MS: milliseconds(limits.bodyIdleTimeoutMs, 0),
    MAX_CONNECTIONS: count(limits.maxConnections),
    MAX_INFLIGHT_UPLOADS: count(limits.maxInflightUploads),
    TRUST_PROXY: rule((raw) => BOOLEAN_WORDS.get(raw.toLowerCase()), 'is not true, false, 1 or 0')
      .optional()
      .default(false),
    CONSOLE: rule((raw) => SWITCH_WORDS.get(raw.toLowerCase()), 'is not on or off')
      .optional()
      .default(true),
  },
  (values, refuse) => {
    // Node counts the headers inside the whole request's time, so they cannot be given longer than it.
    const headers = values['HEADERS_TIMEOUT_MS'];
    const request = values['REQUEST_TIMEOUT_MS'];
    if (typeof headers === 'number' && typeof request === 'number' && request !== 0 && headers > request)
      refuse('HEADERS_TIMEOUT_MS', `is longer than REQUEST_TIMEOUT_MS (${request})`);
  },
);

export type GatewayEnv = EnvValues<typeof gatewayEnv.shape>;

/**
 * Reads the gateway's variables once. Every problem is collected, and one
 * `invalid_argument` error lists them all, each naming its variable. An empty
 * variable counts as unset.
 */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  return gatewayConfigFrom(parseEnv(gatewayEnv, env));
}

/** The gateway's configuration from parsed variables (also those `switchyard start` parsed for both apps). */
export function gatewayConfigFrom(env: GatewayEnv): GatewayConfig {
  const requestTimeoutMs = env.REQUEST_TIMEOUT_MS;
  const headersTimeoutMs =
    env.HEADERS_TIMEOUT_MS ?? (requestTimeoutMs !== 0 ? Math.min(limits.headersTimeoutMs, requestTimeoutMs) : limits.headersTimeoutMs);
  return deepFreeze({
    host: env.HOST,
    port: env.PORT,
    serviceUrl: env.SERVICE_URL,
    cdnUrl: env.CDN_URL,
    maxUploadBytes: env.MAX_UPLOAD_BYTES,
    jsonBodyLimitBytes: env.JSON_BODY_LIMIT_BYTES,
    corsOrigins: env.CORS_ORIGINS,
    logLevel: env.LOG_LEVEL,
    metricsPort: env.METRICS_PORT,
    traces: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
    events: eventsConfigFrom(env.EVENTS_URL),
    clientLimits: {
      headersTimeoutMs,
      requestTimeoutMs,
      bodyIdleTimeoutMs: env.BODY_IDLE_TIMEOUT_MS,
      maxConnections: env.MAX_CONNECTIONS,
      maxInflightUploads: env.MAX_INFLIGHT_UPLOADS,
    },
    trustProxy: env.TRUST_PROXY,
    console: env.CONSOLE,
  });
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

const RESERVED_PATHS = ['/v1', '/healthz', '/console', '/docs'];

function serviceOrigins(raw: string): string | Refusal {
  const targets = parseServiceTargets(raw);
  return targets instanceof Refusal ? targets : formatServiceTargets(targets);
}

function cdnBase(raw: string): string | Refusal {
  const url = httpUrl(raw);
  if (url instanceof Refusal) return url;
  const path = url.pathname.replace(/\/+$/, '');
  const reserved = RESERVED_PATHS.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  if (reserved !== undefined) return no(`has a path that collides with the gateway's own ${reserved === '/v1' ? '/v1 API' : reserved}`);
  return url.href.replace(/\/+$/, '');
}

function corsList(raw: string): CorsOrigins | Refusal {
  if (raw.trim() === '*') return '*';
  const origins: string[] = [];
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const url = httpUrl(entry);
    if (url instanceof Refusal || url.origin !== entry.replace(/\/$/, '')) {
      return no(
        `is not "*" or a comma-separated list of origins such as https://app.example.com (no paths); ${JSON.stringify(entry)} is not an origin`,
      );
    }
    origins.push(url.origin);
  }
  return origins.length > 0 ? origins : no('lists no origin');
}
