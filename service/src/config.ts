import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import {
  DEFAULT_FILE_CACHE,
  DEFAULT_ASSET_HISTORY,
  DEFAULT_ROUTE_HISTORY,
  DEFAULT_TRANSFORM_MAX_PIXELS,
  DEFAULT_TRANSFORM_SIZES,
  DEFAULT_UPLOAD_EXPIRY_MS,
  DEFAULT_WATCH_HEARTBEAT_MS,
  DEFAULT_WATCH_POLL_MS,
} from '@switchyard/core';
import { join, resolve } from 'node:path';
import {
  deepFreeze,
  envSchema,
  httpUrlVariable,
  no,
  parseEnv,
  redactUrlPassword,
  portVariable,
  reasonedRule,
  rule,
  secretVariable,
  SHARED_VARIABLES,
  type MetricsPort,
  type TracesConfig,
  shownAs,
  wholeNumberVariable,
  z,
  type EnvValues,
  type LogLevel,
  type Refusal,
} from '@switchyard/runtime';
import { checkScaleVariables, SCALE_VARIABLES, scaleConfigFrom, type ScaleConfig } from './scale/scale-config.js';
import { SERVICE_LIMIT_VARIABLES, serviceLimitsFrom, type ServiceLimits } from './limits/limits-config.js';
import { parseUrlSigningKeys, type ConfiguredUrlKey } from './url-signing-keys.js';
import { resolveFfmpeg } from './ffmpeg-path.js';
import { KEY_VARIABLES, keysConfigFrom, type KeysConfig } from './keys-config.js';
import { WEBHOOK_VARIABLES, webhookSettingsFrom } from './webhooks-config.js';
import type { WebhookSettings } from '@switchyard/core';
import { DEFAULT_STORAGE_TIMEOUT_MS, type BlobStoreConfig, type DatabaseConfig, type StorageConfig } from './stores/storage-config.js';

export type AuthConfig =
  /** HS256 with `secret`; without one, a secret generated once and kept in DATA_DIR. */
  { readonly kind: 'hmac'; readonly secret?: string | undefined } | { readonly kind: 'jwks'; readonly url: string };

/** Everything the gRPC service reads from its environment, validated and frozen. */
export interface ServiceConfig {
  readonly host: string;
  readonly grpcPort: number;
  /** Absolute. */
  readonly dataDir: string;
  /** CDN_URL: the public base of file urls, absolute, without a trailing slash (required for `switchyard service`; `switchyard start` defaults it to its gateway's /files). */
  readonly cdnUrl: string;
  readonly storage: StorageConfig;
  readonly auth: AuthConfig;
  readonly maxUploadBytes: number;
  readonly logLevel: LogLevel;
  /** METRICS_PORT: where the `service` command serves /metrics (`off`: nowhere). */
  readonly metricsPort: MetricsPort;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME: where spans go (nowhere when unset) and as which service. */
  readonly traces: TracesConfig;
  /** Upload idle timeout and per-workspace rate limit (limits/limits-config.ts). */
  readonly limits: ServiceLimits;
  /** TRANSFORM_SIZES, TRANSFORM_MAX_PIXELS and TRANSFORM_CONCURRENCY (image transformations on file urls). */
  readonly transforms: { readonly sizes: readonly number[]; readonly maxPixels: number; readonly concurrency: number };
  /** WATCH_POLL_MS and WATCH_HEARTBEAT_MS: how route and asset watches notice changes made through other instances, and how often an idle one says it is alive. */
  readonly routeWatch: { readonly pollMs: number; readonly heartbeatMs: number };
  /** UPLOAD_EXPIRY_SECONDS, in ms: how long an unfinished resumable upload lives after its last append. */
  readonly uploadExpiryMs: number;
  /** FILE_CACHE_BYTES: memory for small files served by url (0: none). */
  readonly fileCacheBytes: number;
  /** URL_SIGNING_KEYS; unset: one key generated in DATA_DIR (url-signing-keys.ts). */
  readonly urlSigningKeys?: readonly ConfiguredUrlKey[] | undefined;
  /** FFMPEG_PATH, else `ffmpeg` on PATH: what makes videos' poster frames (`?frame`); none: 501. */
  readonly ffmpegPath?: string | undefined;
  /** EVENTS_URL, RATE_LIMIT_STORE and RATE_LIMIT_REDIS_URL: what instances share (scale/scale-config.ts). */
  readonly scale: ScaleConfig;
  /** KEY_MAX_TTL: what API keys are held to (keys-config.ts). */
  readonly keys: KeysConfig;
  /** WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS and WEBHOOK_ALLOWED_NETWORKS (webhooks-config.ts). */
  readonly webhooks: WebhookSettings;
}

export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  grpcPort: 50051,
  dataDir: './data',
  maxUploadBytes: 104_857_600,
  // Not unnecessary: it widens the literal, so the exported default has the option's type.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  logLevel: 'info' as LogLevel,
  s3Region: 'us-east-1',
});

/** HS256 keys shorter than the hash output weaken it (RFC 7518 §3.2). */
const MIN_SECRET_LENGTH = 32;

/** The service's variables (docs/configuration.md, described in config-docs.ts), in the order refusals list them. */
export const serviceEnv = envSchema(
  {
    ...SHARED_VARIABLES,
    GRPC_PORT: portVariable(DEFAULTS.grpcPort),
    DATA_DIR: z
      .string()
      .optional()
      .default(DEFAULTS.dataDir)
      .transform((dir) => resolve(dir)),
    CDN_URL: httpUrlVariable(),
    STORAGE_TIMEOUT_MS: wholeNumberVariable(
      DEFAULT_STORAGE_TIMEOUT_MS,
      1,
      Number.MAX_SAFE_INTEGER,
      'is not a positive whole number of milliseconds',
    ),
    DATABASE_URL: shownAs(reasonedRule(mysqlUrl).optional(), redactUrlPassword),
    BLOB_STORE: rule((raw) => (raw === 'disk' || raw === 's3' ? raw : undefined), 'is not a blob store (disk or s3)')
      .optional()
      .default('disk'),
    S3_BUCKET: rule(
      (raw) => (/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(raw) ? raw : undefined),
      'is not a valid bucket name (3-63 of a-z 0-9 . -)',
    ).optional(),
    S3_ENDPOINT: httpUrlVariable(),
    S3_REGION: rule((raw) => (/^[a-z0-9-]{1,64}$/.test(raw) ? raw : undefined), 'is not a region name such as us-east-1')
      .optional()
      .default(DEFAULTS.s3Region),
    // Never echoed, not even a bad one.
    AUTH_SECRET: secretVariable(
      MIN_SECRET_LENGTH,
      `is too short: an HS256 key needs at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 32)`,
    ),
    AUTH_JWKS_URL: httpUrlVariable(),
    // Never echoed either.
    URL_SIGNING_KEYS: shownAs(reasonedRule(parseUrlSigningKeys).optional(), () => undefined),
    TRANSFORM_SIZES: reasonedRule(parseSizes).optional(),
    TRANSFORM_MAX_PIXELS: wholeNumberVariable(
      DEFAULT_TRANSFORM_MAX_PIXELS,
      1,
      1_000_000_000,
      'is not a whole number of pixels between 1 and 1000000000',
    ),
    TRANSFORM_CONCURRENCY: wholeNumberVariable(Math.max(1, availableParallelism()), 1, 1024, 'is not a whole number between 1 and 1024'),
    UPLOAD_EXPIRY_SECONDS: wholeNumberVariable(
      DEFAULT_UPLOAD_EXPIRY_MS / 1000,
      1,
      365 * 86_400,
      'is not a whole number of seconds between 1 and 31536000 (a year)',
    ),
    FILE_CACHE_BYTES: wholeNumberVariable(DEFAULT_FILE_CACHE.maxBytes, 0, Number.MAX_SAFE_INTEGER, 'is not a whole number of bytes'),
    ROUTE_HISTORY: wholeNumberVariable(DEFAULT_ROUTE_HISTORY, 1, 10_000_000, 'is not a whole number of changes between 1 and 10000000'),
    ASSET_HISTORY: wholeNumberVariable(DEFAULT_ASSET_HISTORY, 1, 10_000_000, 'is not a whole number of revisions between 1 and 10000000'),
    WATCH_POLL_MS: wholeNumberVariable(DEFAULT_WATCH_POLL_MS, 10, 60_000, 'is not a number of milliseconds between 10 and 60000'),
    WATCH_HEARTBEAT_MS: wholeNumberVariable(
      DEFAULT_WATCH_HEARTBEAT_MS,
      100,
      3_600_000,
      'is not a number of milliseconds between 100 and 3600000',
    ),
    // Any path: one that names no executable makes ?frame 501, as no ffmpeg does, and the service says so at start.
    FFMPEG_PATH: z.string().optional(),
    // The system's own, read only to find ffmpeg when FFMPEG_PATH is unset.
    PATH: z.string().optional(),
    ...SERVICE_LIMIT_VARIABLES,
    ...SCALE_VARIABLES,
    ...KEY_VARIABLES,
    ...WEBHOOK_VARIABLES,
  },
  (values, refuse) => {
    if (values['BLOB_STORE'] === 's3' && values['S3_BUCKET'] === undefined)
      refuse('S3_BUCKET', 'is required when BLOB_STORE=s3', { showValue: false });
  },
  (values, refuse) => {
    if (values['AUTH_SECRET'] !== undefined && values['AUTH_JWKS_URL'] !== undefined) {
      refuse('AUTH_JWKS_URL', 'cannot be combined with AUTH_SECRET: set one way of verifying tokens', { showValue: false });
    }
  },
  checkScaleVariables,
);

export type ServiceEnv = EnvValues<typeof serviceEnv.shape>;

/**
 * Reads the service's variables once. Every problem is collected, and one
 * `invalid_argument` error lists them all, each naming its variable. An empty
 * variable counts as unset.
 */
export function loadServiceConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  return serviceConfigFrom(parseEnv(serviceEnv, env));
}

/**
 * The service's public base of file urls is the gateway's (or a CDN's), a
 * port the service does not serve: run alone (`switchyard service`), it
 * cannot guess it, so CDN_URL is required. `switchyard start` names its own
 * gateway's port instead.
 */
const standaloneServiceEnv = envSchema(serviceEnv.shape, ...serviceEnv.checks, (values, refuse) => {
  if (values['CDN_URL'] === undefined) {
    refuse(
      'CDN_URL',
      "is required for `switchyard service`: asset urls are made here, so name the public base of files, e.g. the gateway's http://gateway.example:8080/files or your CDN",
      { showValue: false },
    );
  }
});

/** loadServiceConfig for a service run alone: CDN_URL must be set. */
export function loadStandaloneServiceConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  return serviceConfigFrom(parseEnv(standaloneServiceEnv, env));
}

/** The service's configuration from parsed variables (also those `switchyard start` parsed for both apps). */
export function serviceConfigFrom(env: ServiceEnv): ServiceConfig {
  const cdnUrl = env.CDN_URL ?? `http://${urlHost(env.HOST)}:${env.PORT}/files`;
  const network = { timeoutMs: env.STORAGE_TIMEOUT_MS };
  const database: DatabaseConfig =
    env.DATABASE_URL === undefined
      ? { kind: 'sqlite', file: join(env.DATA_DIR, 'switchyard.sqlite') }
      : { kind: 'mysql', url: env.DATABASE_URL, ...network };
  const blobs: BlobStoreConfig =
    env.BLOB_STORE === 'disk'
      ? { kind: 'disk', root: join(env.DATA_DIR, 'files') }
      : {
          kind: 's3',
          bucket: env.S3_BUCKET!,
          region: env.S3_REGION,
          endpoint: env.S3_ENDPOINT,
          forcePathStyle: env.S3_ENDPOINT !== undefined,
          ...network,
        };
  const auth: AuthConfig =
    env.AUTH_JWKS_URL !== undefined
      ? { kind: 'jwks', url: env.AUTH_JWKS_URL }
      : env.AUTH_SECRET !== undefined
        ? { kind: 'hmac', secret: env.AUTH_SECRET }
        : { kind: 'hmac' };
  return deepFreeze({
    host: env.HOST,
    grpcPort: env.GRPC_PORT,
    dataDir: env.DATA_DIR,
    cdnUrl,
    storage: { database, blobs, routeHistory: env.ROUTE_HISTORY, assetHistory: env.ASSET_HISTORY },
    auth,
    maxUploadBytes: env.MAX_UPLOAD_BYTES,
    logLevel: env.LOG_LEVEL,
    metricsPort: env.METRICS_PORT,
    traces: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
    limits: serviceLimitsFrom(env),
    urlSigningKeys: env.URL_SIGNING_KEYS,
    uploadExpiryMs: env.UPLOAD_EXPIRY_SECONDS * 1000,
    fileCacheBytes: env.FILE_CACHE_BYTES,
    routeWatch: { pollMs: env.WATCH_POLL_MS, heartbeatMs: env.WATCH_HEARTBEAT_MS },
    transforms: {
      sizes: env.TRANSFORM_SIZES ?? DEFAULT_TRANSFORM_SIZES,
      maxPixels: env.TRANSFORM_MAX_PIXELS,
      concurrency: env.TRANSFORM_CONCURRENCY,
    },
    ffmpegPath: resolveFfmpeg(env.FFMPEG_PATH, env.PATH),
    scale: scaleConfigFrom(env),
    keys: keysConfigFrom(env),
    webhooks: webhookSettingsFrom(env),
  });
}

/** TRANSFORM_SIZES: a comma-separated list of pixel sizes from 1 to 10000. */
function parseSizes(raw: string): number[] | Refusal {
  const sizes = raw.split(',').map((part) => part.trim());
  if (sizes.length > 64 || !sizes.every((size) => /^\d{1,5}$/.test(size) && Number(size) >= 1 && Number(size) <= 10_000))
    return no('is not a comma-separated list of at most 64 sizes from 1 to 10000');
  return [...new Set(sizes.map(Number))].sort((a, b) => a - b);
}

/** `[::1]` for IPv6 literals, as URLs and grpc-js addresses need. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** DATABASE_URL: a mysql:// URL naming a host and a database (unset: SQLite in DATA_DIR). */
function mysqlUrl(raw: string): string | Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no('is not a URL (expected mysql://user:pass@host:port/database)');
  }
  if (url.protocol !== 'mysql:') return no('is not a mysql:// URL (leave DATABASE_URL unset for SQLite in DATA_DIR)');
  if (!url.hostname) return no('names no host');
  if (url.pathname.length <= 1) return no('names no database (mysql://user:pass@host:port/database)');
  return raw;
}
