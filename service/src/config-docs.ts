// What each of the service's variables means (config.ts holds the rules):
// docs/configuration.md is generated from this record, and
// test/docs/configuration-docs.test.ts fails when a variable of `serviceEnv`
// has no entry here. Defaults come from the schemas unless given.
import { DEFAULT_TRANSFORM_SIZES } from '@switchyard/core';
import { SHARED_VARIABLE_DOCS, type VariableDocs } from '@switchyard/runtime';
import type { serviceEnv } from './config.js';

const code = (text: string) => `\`${text}\``;

export const SERVICE_VARIABLE_DOCS = Object.freeze({
  ...SHARED_VARIABLE_DOCS,
  GRPC_PORT: { meaning: 'gRPC port; `0` picks a free one' },
  DATA_DIR: { meaning: 'the SQLite database, stored files (`BLOB_STORE=disk`) and the secrets generated once' },
  CDN_URL: {
    meaning:
      "public base of file urls, the same for every service and gateway: the service makes every asset's url from it, the gateway serves files under its path; point it at your CDN, which fetches from the gateway's `/files`",
    default: { start: '`http://HOST:PORT/files`', service: 'required' },
  },
  STORAGE_TIMEOUT_MS: {
    meaning: 'how long a MySQL query or connection attempt, or a silent S3 request, may take before the call is 503 `unavailable`',
  },
  DATABASE_URL: { meaning: '`mysql://user:pass@host:port/db` selects MySQL (or MariaDB)', default: 'SQLite in `DATA_DIR`' },
  BLOB_STORE: { meaning: '`disk` (under `DATA_DIR/files`) or `s3`' },
  S3_BUCKET: { meaning: 'the bucket for `BLOB_STORE=s3` (required then); credentials come from the usual `AWS_*` variables' },
  S3_ENDPOINT: { meaning: 'an S3-compatible endpoint (MinIO, s3rver, …); path-style requests are used with it', default: 'AWS' },
  S3_REGION: { meaning: "the bucket's region" },
  AUTH_SECRET: {
    meaning: 'HS256 key for bearer tokens (at least 32 characters); services on different machines must share it',
    default: 'generated once into `DATA_DIR`',
  },
  AUTH_JWKS_URL: { meaning: "verify tokens against an identity provider's JWKS (asymmetric algorithms only) instead of `AUTH_SECRET`" },
  URL_SIGNING_KEYS: {
    meaning:
      'keys for signed file urls: `id:secret` pairs (secrets of at least 32 characters), comma-separated; the first signs, all verify',
    default: 'one key generated once into `DATA_DIR/url-signing-key`',
  },
  TRANSFORM_SIZES: {
    meaning: 'the widths and heights image transformations may ask for',
    default: code(DEFAULT_TRANSFORM_SIZES.join(',')),
  },
  TRANSFORM_MAX_PIXELS: { meaning: 'sources with more pixels are not transformed (400)' },
  TRANSFORM_CONCURRENCY: {
    meaning: 'transformations and poster frames at once; eight per slot may wait, more are 503 with `Retry-After`',
    // The schema's default is this machine's count: the docs must not depend on where they were generated.
    default: 'the number of CPUs',
  },
  UPLOAD_EXPIRY_SECONDS: { meaning: 'an unfinished resumable upload is gone this long after its last append (and `gc` removes its bytes)' },
  FILE_CACHE_BYTES: {
    meaning:
      'memory for the bytes of small files (up to 256 KiB each) served by url, least recently used out first; `0` turns it off. A blob never changes under its key and the asset record is still read on every request, so deletes, visibility changes and revocations count at once',
  },
  ROUTE_HISTORY: { meaning: 'route-table changes kept per workspace; a watcher further behind gets a fresh snapshot' },
  ASSET_HISTORY: {
    meaning:
      "revisions of a workspace's asset change log that are kept (a batch delete is one revision); a watcher further behind is told to list again, and an asset's history reaches back this far",
  },
  WATCH_POLL_MS: {
    meaning:
      "how often each watched workspace's revision is read when no `EVENTS_URL` is set (or while its broker is down), so changes made through other instances reach watchers within it; with a broker, polling drops to a safety net: each watched workspace read once every 30 s",
  },
  WATCH_HEARTBEAT_MS: { meaning: 'a route or asset watch sends a heartbeat after this long without another event' },
  FFMPEG_PATH: {
    meaning:
      "the ffmpeg that makes videos' poster frames (`?frame`); without one (or one naming nothing, which the service warns about at start), `?frame` is 501 `unimplemented`",
    default: '`ffmpeg` on `PATH`',
  },
  PATH: { meaning: "the system's own, searched for `ffmpeg` when `FFMPEG_PATH` is unset" },
  UPLOAD_IDLE_TIMEOUT_MS: { meaning: 'time an upload stream may go without a message, then `deadline_exceeded`; `0` = none' },
  RATE_LIMIT_PER_SECOND: {
    meaning:
      'sustained calls per second per workspace, per service instance (across all of them with `RATE_LIMIT_STORE=redis`); beyond it 429 with `Retry-After`; `0` = off. File reads are never limited',
  },
  RATE_LIMIT_BURST: { meaning: 'calls a workspace may make at once after a quiet spell', default: 'twice the rate' },
  RATE_LIMIT_STORE: {
    meaning:
      "`redis` counts each workspace's calls in Redis, so the limit holds across every instance: the rate in 1-second windows, the part of the burst above it in a window long enough to add at most a tenth of the rate. While Redis does not answer (within 500 ms), each instance limits on its own again, counted in `switchyard_rate_limit_fallback_total`; no call fails for it",
  },
  RATE_LIMIT_REDIS_URL: {
    meaning: 'the `redis://` or `rediss://` URL for `RATE_LIMIT_STORE=redis`',
    default: '`EVENTS_URL`, when that is a Redis',
  },
  KEY_MAX_TTL: {
    meaning:
      'the longest life an API key may be given (`expiresAt` at most this far ahead): `90d`, `12h`, `30m` or whole seconds, from a minute to 3650 days; read at start',
    default: '`365d`',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    meaning:
      "the waits between a webhook delivery's attempts, comma separated (`ms`, `s`, `m`, `h`, `d`; each at most 7 days): the first attempt is at once, one more after each wait, then the delivery is `failed`; read at start",
    default: '`5s,5m,30m,2h,5h,10h,14h,20h,24h`',
  },
  WEBHOOK_TIMEOUT_MS: {
    meaning: 'an attempt without a 2xx answer by then failed (100 to 300000)',
    default: '`15000`',
  },
  WEBHOOK_ALLOWED_NETWORKS: {
    meaning:
      'CIDRs (comma separated) a webhook destination may resolve to besides public addresses, for example `127.0.0.0/8` in tests; loopback, private and link-local addresses are refused otherwise',
    default: 'unset',
  },
} satisfies VariableDocs<typeof serviceEnv.shape>);
