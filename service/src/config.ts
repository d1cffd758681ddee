import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { SwitchyardError, type ErrorDetail } from '../../lib/src/errors.js';
import { parseServiceLimits, type ServiceLimits } from './limits/limits-config.js';
import { DEFAULT_STORAGE_TIMEOUT_MS, type BlobStoreConfig, type DatabaseConfig, type StorageConfig } from './stores/storage-config.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type AuthConfig =
  /** HS256 with `secret`; without one, a secret generated once and kept in DATA_DIR. */
  | { readonly kind: 'hmac'; readonly secret?: string | undefined }
  | { readonly kind: 'jwks'; readonly url: string };

/** Everything the gRPC service reads from its environment, validated and frozen. */
export interface ServiceConfig {
  readonly host: string;
  readonly grpcPort: number;
  /** Absolute. */
  readonly dataDir: string;
  /** Absolute http(s) URL without a trailing slash. */
  readonly cdnUrl: string;
  readonly storage: StorageConfig;
  readonly auth: AuthConfig;
  readonly maxUploadBytes: number;
  readonly logLevel: LogLevel;
  /** Upload idle timeout and per-workspace rate limit (limits/limits-config.ts). */
  readonly limits: ServiceLimits;
}

export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  grpcPort: 50051,
  dataDir: './data',
  maxUploadBytes: 104_857_600,
  logLevel: 'info' as LogLevel,
  s3Region: 'us-east-1',
});

/** HS256 keys shorter than the hash output weaken it (RFC 7518 §3.2). */
const MIN_SECRET_LENGTH = 32;

/**
 * Reads the service's variables (CONTRACT.md) once. Every problem is collected,
 * and one `invalid_argument` error lists them all, each naming its variable.
 * An empty variable counts as unset.
 */
export function loadServiceConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const problems: ErrorDetail[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const problem = (field: string, reason: string): undefined => {
    problems.push({ field, reason });
    return undefined;
  };
  const refuse = (name: string, value: string, reason: string): undefined => problem(name, `${JSON.stringify(value)} ${reason}`);

  const host = parseHost(read('HOST') ?? DEFAULTS.host, (reason) => refuse('HOST', read('HOST') ?? '', reason));
  const port = parsePort(read('PORT'), DEFAULTS.port, (value, reason) => refuse('PORT', value, reason));
  const grpcPort = parsePort(read('GRPC_PORT'), DEFAULTS.grpcPort, (value, reason) => refuse('GRPC_PORT', value, reason));
  const dataDir = resolve(read('DATA_DIR') ?? DEFAULTS.dataDir);

  const cdnRaw = read('CDN_URL') ?? `http://${urlHost(host ?? DEFAULTS.host)}:${port ?? DEFAULTS.port}/files`;
  const cdnUrl = parseHttpUrl(cdnRaw, (reason) => refuse('CDN_URL', cdnRaw, reason));

  const timeoutRaw = read('STORAGE_TIMEOUT_MS');
  const storageTimeoutMs = timeoutRaw === undefined ? DEFAULT_STORAGE_TIMEOUT_MS : parsePositiveInteger(timeoutRaw, (reason) => refuse('STORAGE_TIMEOUT_MS', timeoutRaw, reason));
  const database = withStorageTimeout(parseDatabase(read('DATABASE_URL'), dataDir, (value, reason) => refuse('DATABASE_URL', value, reason)), storageTimeoutMs);
  const blobs = withStorageTimeout(parseBlobStore(read, dataDir, refuse, problem), storageTimeoutMs);
  const auth = parseAuth(read('AUTH_SECRET'), read('AUTH_JWKS_URL'), refuse, problem);

  const maxRaw = read('MAX_UPLOAD_BYTES');
  const maxUploadBytes = maxRaw === undefined ? DEFAULTS.maxUploadBytes : parsePositiveInteger(maxRaw, (reason) => refuse('MAX_UPLOAD_BYTES', maxRaw, reason));

  const levelRaw = read('LOG_LEVEL');
  const logLevel = levelRaw === undefined ? DEFAULTS.logLevel : parseLogLevel(levelRaw, (reason) => refuse('LOG_LEVEL', levelRaw, reason));

  // Refused values are recorded in `problems`, which stops the load below.
  const limits = parseServiceLimits(read, refuse);

  if (problems.length > 0 || !host || grpcPort === undefined || !cdnUrl || !database || !blobs || !auth || maxUploadBytes === undefined || !logLevel) {
    const lines = problems.map((p) => `  ${p.field}: ${p.reason}`).join('\n');
    throw new SwitchyardError('invalid_argument', `invalid configuration:\n${lines}`, problems);
  }
  return deepFreeze({ host, grpcPort, dataDir, cdnUrl, storage: { database, blobs }, auth, maxUploadBytes, logLevel, limits });
}

/** `[::1]` for IPv6 literals, as URLs and grpc-js addresses need. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function parseHost(raw: string, refuse: (reason: string) => undefined): string | undefined {
  if (isIP(raw) !== 0 || HOSTNAME.test(raw)) return raw;
  return refuse('is not an IP address or host name');
}

function parsePort(raw: string | undefined, fallback: number, refuse: (value: string, reason: string) => undefined): number | undefined {
  if (raw === undefined) return fallback;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  return port <= 65535 ? port : refuse(raw, 'is not a port number (0-65535; 0 picks a free port)');
}

function parsePositiveInteger(raw: string, refuse: (reason: string) => undefined): number | undefined {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : refuse('is not a positive whole number of bytes');
}

function parseLogLevel(raw: string, refuse: (reason: string) => undefined): LogLevel | undefined {
  const level = LOG_LEVELS.find((l) => l === raw.toLowerCase());
  return level ?? refuse(`is not a log level (${LOG_LEVELS.join(', ')})`);
}

function parseHttpUrl(raw: string, refuse: (reason: string) => undefined): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('is not an http or https URL');
  if (url.search || url.hash) return refuse('must have no query or fragment');
  if (url.username || url.password) return refuse('must carry no credentials');
  return url.href.replace(/\/+$/, '');
}

function parseDatabase(raw: string | undefined, dataDir: string, refuse: (value: string, reason: string) => undefined): DatabaseConfig | undefined {
  if (raw === undefined) return { kind: 'sqlite', file: join(dataDir, 'switchyard.sqlite') };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(redactUrl(raw), 'is not a URL (expected mysql://user:pass@host:port/database)');
  }
  if (url.protocol !== 'mysql:') return refuse(redactUrl(raw), 'is not a mysql:// URL (leave DATABASE_URL unset for SQLite in DATA_DIR)');
  if (!url.hostname) return refuse(redactUrl(raw), 'names no host');
  if (url.pathname.length <= 1) return refuse(redactUrl(raw), 'names no database (mysql://user:pass@host:port/database)');
  return { kind: 'mysql', url: raw };
}

/** Network stores (MySQL, S3) get the limit; SQLite and disk are local and have none. */
function withStorageTimeout<T extends DatabaseConfig | BlobStoreConfig>(config: T | undefined, timeoutMs: number | undefined): T | undefined {
  if (config === undefined || timeoutMs === undefined) return config;
  return config.kind === 'mysql' || config.kind === 's3' ? { ...config, timeoutMs } : config;
}

/** Error messages must never echo a database password. */
function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

type Read = (name: string) => string | undefined;
type Refuse = (name: string, value: string, reason: string) => undefined;
type Problem = (name: string, reason: string) => undefined;

function parseBlobStore(read: Read, dataDir: string, refuse: Refuse, problem: Problem): BlobStoreConfig | undefined {
  const kind = read('BLOB_STORE') ?? 'disk';
  if (kind === 'disk') return { kind: 'disk', root: join(dataDir, 'files') };
  if (kind !== 's3') return refuse('BLOB_STORE', kind, 'is not a blob store (disk or s3)');

  const bucket = read('S3_BUCKET');
  if (bucket === undefined) problem('S3_BUCKET', 'is required when BLOB_STORE=s3');
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) refuse('S3_BUCKET', bucket, 'is not a valid bucket name (3-63 of a-z 0-9 . -)');
  const endpointRaw = read('S3_ENDPOINT');
  const endpoint = endpointRaw === undefined ? undefined : parseHttpUrl(endpointRaw, (reason) => refuse('S3_ENDPOINT', endpointRaw, reason));
  const region = read('S3_REGION') ?? DEFAULTS.s3Region;
  if (!/^[a-z0-9-]{1,64}$/.test(region)) refuse('S3_REGION', region, 'is not a region name such as us-east-1');
  if (bucket === undefined || (endpointRaw !== undefined && endpoint === undefined)) return undefined;
  return { kind: 's3', bucket, region, endpoint, forcePathStyle: endpoint !== undefined };
}

function parseAuth(secret: string | undefined, jwksRaw: string | undefined, refuse: Refuse, problem: Problem): AuthConfig | undefined {
  if (secret !== undefined && jwksRaw !== undefined) {
    return problem('AUTH_JWKS_URL', 'cannot be combined with AUTH_SECRET: set one way of verifying tokens');
  }
  if (jwksRaw !== undefined) {
    const url = parseHttpUrl(jwksRaw, (reason) => refuse('AUTH_JWKS_URL', jwksRaw, reason));
    return url === undefined ? undefined : { kind: 'jwks', url };
  }
  if (secret === undefined) return { kind: 'hmac' };
  if (secret.length < MIN_SECRET_LENGTH) {
    // Never echo a secret, not even a bad one.
    return problem('AUTH_SECRET', `is too short: an HS256 key needs at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 32)`);
  }
  return { kind: 'hmac', secret };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
