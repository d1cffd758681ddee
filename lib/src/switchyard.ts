import { createAssetService } from './assets/asset-service.js';
import { AssetChangeNotices, type AssetChangeSource } from './assets/asset-change-notices.js';
import type { AssetService } from './assets/types.js';
import { systemTime, type TimeSource } from './clock.js';
import { SwitchyardError } from './errors.js';
import { createUlidSource, type IdSource } from './ids.js';
import type { AssetStore } from './ports/asset-store.js';
import type { BlobStore } from './ports/blob-store.js';
import type { RouteStore } from './ports/route-store.js';
import type { ChangeFeed } from './ports/change-feed.js';
import {
  createRouteService,
  DEFAULT_WATCH_HEARTBEAT_MS,
  DEFAULT_WATCH_POLL_MS,
  DEFAULT_WATCH_SAFETY_POLL_MS,
} from './routes/route-service.js';
import { createUrlSigner, randomUrlSigningKey, type UrlSigningKey } from './assets/signed-urls.js';
import { availableParallelism } from 'node:os';
import { VariantMaker, type TransformConfig, type TransformObserver } from './assets/transform/variants.js';
import { DEFAULT_TRANSFORM_SIZES } from './assets/transform/transform-params.js';
import type { RouteService } from './routes/types.js';
import type { UploadStore } from './ports/upload-store.js';
import { createResumableUploads, DEFAULT_UPLOAD_EXPIRY_MS } from './uploads/resumable-uploads.js';
import type { ResumableUploads } from './uploads/types.js';
import { DEFAULT_FILE_CACHE, FileCache, type FileCacheConfig } from './assets/file-cache.js';
import { DEFAULT_MEDIA_FACTS, MediaDescriber, type DescribeObserver, type MediaFactsConfig } from './assets/media/describe-media.js';
import { DEFAULT_POSTER_FRAMES, type PosterFrameConfig } from './assets/transform/poster-frame.js';
import type { KeyStore } from './ports/key-store.js';
import { createApiKeys, type ApiKeyOptions } from './keys/api-keys.js';
import type { KeyService } from './keys/types.js';
import type { WebhookStore } from './ports/webhook-store.js';
import { createWebhookService } from './webhooks/webhook-service.js';
import { webhookSettingsOf, type WebhookSettings } from './webhooks/webhook-settings.js';
import type { WebhookService } from './webhooks/types.js';
import type { KeyVerifier } from './keys/key-verifier.js';

export const DEFAULT_MAX_UPLOAD_BYTES = 104_857_600;

export interface SwitchyardOptions {
  readonly routeStore: RouteStore;
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  /** Where resumable uploads keep their state; without one, `uploads` is absent. Shared by every instance that may continue an upload. */
  readonly uploadStore?: UploadStore | undefined;
  /** Where workspace API keys live; without one, `keys` and `keyVerifier` are absent. Shared by every instance. */
  readonly keyStore?: KeyStore | undefined;
  /** API keys: their longest life, how long a read key is trusted, the feed revocations travel on. */
  readonly keys?: ApiKeyOptions | undefined;
  /**
   * Webhook endpoints and their outbox; without one, `webhooks` is absent. The
   * route and asset stores must write its deliveries in their transactions
   * (memoryAdapters and the service's storage do).
   */
  readonly webhookStore?: WebhookStore | undefined;
  /** How deliveries are made (webhookSettingsOf: the retry schedule, timeout, allowed networks); the contract's defaults otherwise. */
  readonly webhooks?: WebhookSettings | undefined;
  /** How long an unfinished resumable upload lives after its last append (ms, default one day). */
  readonly uploadExpiryMs?: number | undefined;
  /** Public base URL of stored files, e.g. `https://cdn.example.com/files`. */
  readonly cdnUrl: string;
  /** Largest accepted file in bytes (default 100 MiB). */
  readonly maxUploadBytes?: number | undefined;
  /**
   * Keys for signed file urls; the first signs, all verify (rotation: put the
   * new key first, keep the old one until the links it signed have expired).
   * Default: one random key, so signed urls last as long as the process.
   */
  readonly urlSigningKeys?: readonly UrlSigningKey[] | undefined;
  /** Image transformations: allowed sizes, the pixel limit of sources, how many run at once and how many may wait. */
  readonly transforms?: Partial<TransformConfig> | undefined;
  /** Told of the transform queue, each transformation's work time and refusals (the service's metrics); nothing by default. */
  readonly transformObserver?: TransformObserver | undefined;
  /**
   * Reading media facts at upload: bytes each file's parser may read past the
   * head (default 32 MiB; images read whole up to it for their placeholder),
   * milliseconds it may take (5000), parsers at once (two worker threads at
   * most), files waiting (256; more are stored without facts) and each
   * worker's heap (128 MiB).
   */
  readonly mediaFacts?: Partial<Omit<MediaFactsConfig, 'maxPixels'>> | undefined;
  /** Told how each file's parse ended and what it cost; nothing by default. */
  readonly mediaFactsObserver?: DescribeObserver | undefined;
  /**
   * Poster frames of videos (`?frame` on file urls): the ffmpeg executable
   * (none: `unimplemented`), and each run's time (default 20 s) and address
   * space (default 1 GiB).
   */
  readonly posterFrames?: Partial<PosterFrameConfig> | undefined;
  /** Small files served by url kept in memory: at most `maxBytes` in all (default 64 MiB; 0 turns it off), files up to `maxFileBytes` (default 256 KiB). */
  readonly fileCache?: Partial<FileCacheConfig> | undefined;
  /**
   * Route watches: how often a watched workspace is checked for changes made
   * through other instances (`pollMs`, default 250), and the heartbeat
   * interval (`heartbeatMs`, default 15000). With a `feed` shared by every
   * instance (a broker), watchers wake on its messages and a watched
   * workspace is read only every `safetyPollMs` (default 30000), or every
   * `pollMs` while the feed is down.
   */
  readonly routeWatch?: RouteWatchOptions | undefined;
  /**
   * Asset watches (`assets.watch`): the same settings as route watches, each
   * defaulting to `routeWatch`'s (so one `feed` carries both; messages name
   * their log), then to the same defaults.
   */
  readonly assetWatch?: RouteWatchOptions | undefined;
  /** The clock and timers of every lease, deadline, expiry and poll (default: the system's); tests pass fake ones. */
  readonly time?: TimeSource | undefined;
  readonly ids?: IdSource | undefined;
}

export interface RouteWatchOptions {
  readonly pollMs?: number | undefined;
  readonly heartbeatMs?: number | undefined;
  readonly feed?: ChangeFeed | undefined;
  readonly safetyPollMs?: number | undefined;
}

/** The core, wired to its adapters. */
export interface Switchyard {
  readonly routes: RouteService;
  readonly assets: AssetService;
  /**
   * Asset revisions as they commit: this core's writes at once, with the
   * assets they changed; other instances' as the `assetWatch` feed (by default
   * `routeWatch`'s) tells of them, without. A cache of file answers in the same
   * process (the gateway's) drops what they make stale.
   */
  readonly assetChanges: AssetChangeSource;
  /** Resumable uploads (tus), when an `uploadStore` was given. */
  readonly uploads: ResumableUploads | undefined;
  /** Workspace API keys, when a `keyStore` was given. */
  readonly keys: KeyService | undefined;
  /** Turns `sy_…` secrets into principals, when a `keyStore` was given: chain it with the token verifier (createCredentialVerifier). */
  readonly keyVerifier: KeyVerifier | undefined;
  /** Webhook endpoints and their delivery log, when a `webhookStore` was given (the relay that sends runs beside, createWebhookRelay). */
  readonly webhooks: WebhookService | undefined;
  /** Ends the media parsers' worker threads (idle ones end by themselves after 30 s, and none keeps the process alive). */
  close(): Promise<void>;
}

/** Wires the core to its adapters. Options are validated and frozen here, once. */
export function createSwitchyard(options: SwitchyardOptions): Switchyard {
  const time = options.time ?? systemTime;
  const ids = options.ids ?? createUlidSource();
  const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  if (!Number.isSafeInteger(maxUploadBytes) || maxUploadBytes < 0) {
    throw new SwitchyardError('invalid_argument', 'maxUploadBytes must be a non-negative integer', [
      { field: 'maxUploadBytes', reason: 'not a non-negative integer' },
    ]);
  }
  const cdnUrl = normalizeCdnUrl(options.cdnUrl);
  const expiryMs = options.uploadExpiryMs ?? DEFAULT_UPLOAD_EXPIRY_MS;
  if (!Number.isSafeInteger(expiryMs) || expiryMs <= 0) {
    throw new SwitchyardError('invalid_argument', 'uploadExpiryMs must be a positive integer', [
      { field: 'uploadExpiryMs', reason: 'not a positive integer' },
    ]);
  }
  for (const [field, watchOptions] of [
    ['routeWatch', options.routeWatch],
    ['assetWatch', options.assetWatch],
  ] as const) {
    const safetyPollMs = watchOptions?.safetyPollMs;
    if (safetyPollMs !== undefined && (!Number.isSafeInteger(safetyPollMs) || safetyPollMs <= 0)) {
      throw new SwitchyardError('invalid_argument', `${field}.safetyPollMs must be a positive integer`, [
        { field: `${field}.safetyPollMs`, reason: 'not a positive integer' },
      ]);
    }
  }
  const assetWatch = { ...options.routeWatch, ...definedOf(options.assetWatch) };
  const transforms = transformConfig(options.transforms);
  const describer = new MediaDescriber(
    options.blobStore,
    Object.freeze({ ...DEFAULT_MEDIA_FACTS, ...options.mediaFacts, maxPixels: transforms.maxPixels }),
    options.mediaFactsObserver,
    time,
  );
  const frames = Object.freeze({ ...DEFAULT_POSTER_FRAMES, ...options.posterFrames });
  const notices = new AssetChangeNotices(assetWatch.feed);
  const assets = createAssetService({
    assetStore: options.assetStore,
    routeStore: options.routeStore,
    blobStore: options.blobStore,
    clock: time,
    ids,
    cdnUrl,
    maxUploadBytes,
    urlSigner: createUrlSigner(options.urlSigningKeys ?? [randomUrlSigningKey()]),
    variants: new VariantMaker(options.blobStore, transforms, options.transformObserver, frames, time),
    fileCache: new FileCache(fileCacheConfig(options.fileCache)),
    describer,
    watch: {
      pollMs: assetWatch.pollMs ?? DEFAULT_WATCH_POLL_MS,
      safetyPollMs: assetWatch.safetyPollMs ?? DEFAULT_WATCH_SAFETY_POLL_MS,
      heartbeatMs: assetWatch.heartbeatMs ?? DEFAULT_WATCH_HEARTBEAT_MS,
      feed: assetWatch.feed,
      time,
      notices,
    },
  });
  const { uploadStore, routeWatch: watch } = options;
  const apiKeys = options.keyStore ? createApiKeys(options.keyStore, time, ids, options.keys) : undefined;
  return Object.freeze({
    routes: createRouteService({
      store: options.routeStore,
      clock: time,
      time,
      ids,
      watchPollMs: watch?.pollMs,
      watchHeartbeatMs: watch?.heartbeatMs,
      watchFeed: watch?.feed,
      watchSafetyPollMs: watch?.safetyPollMs,
    }),
    assets,
    assetChanges: notices,
    uploads: uploadStore
      ? createResumableUploads({
          uploadStore,
          assetStore: options.assetStore,
          blobStore: options.blobStore,
          assets,
          time,
          ids,
          maxUploadBytes,
          expiryMs,
        })
      : undefined,
    keys: apiKeys?.service,
    keyVerifier: apiKeys?.verifier,
    webhooks: options.webhookStore
      ? createWebhookService({ store: options.webhookStore, clock: time, ids, settings: options.webhooks ?? webhookSettingsOf() })
      : undefined,
    close: () => {
      apiKeys?.close();
      return describer.close();
    },
  });
}

/** The options that are set: an unset one leaves the route watch's in place. */
function definedOf(options: RouteWatchOptions | undefined): RouteWatchOptions {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined));
}

/** The file cache's bounds with their defaults; each a whole number of bytes. */
function fileCacheConfig(given: Partial<FileCacheConfig> = {}): FileCacheConfig {
  const config = { ...DEFAULT_FILE_CACHE, ...given };
  for (const field of ['maxBytes', 'maxFileBytes'] as const) {
    if (!Number.isSafeInteger(config[field]) || config[field] < 0) {
      throw new SwitchyardError('invalid_argument', `fileCache.${field} must be a non-negative integer`, [
        { field: `fileCache.${field}`, reason: 'not a non-negative integer' },
      ]);
    }
  }
  return Object.freeze(config);
}

export const DEFAULT_TRANSFORM_MAX_PIXELS = 50_000_000;

/** Transform settings with their defaults: concurrency as many as the CPUs, a queue of eight per slot. */
function transformConfig(given: Partial<TransformConfig> = {}): TransformConfig {
  const concurrency = given.concurrency ?? Math.max(1, availableParallelism());
  return Object.freeze({
    sizes: Object.freeze([...(given.sizes ?? DEFAULT_TRANSFORM_SIZES)]),
    maxPixels: given.maxPixels ?? DEFAULT_TRANSFORM_MAX_PIXELS,
    concurrency,
    queue: given.queue ?? concurrency * 8,
  });
}

/** An absolute http(s) URL without a trailing slash, so `${cdnUrl}/${path}` is always right. */
function normalizeCdnUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SwitchyardError('invalid_argument', 'cdnUrl must be an absolute URL', [{ field: 'cdnUrl', reason: 'not an absolute URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SwitchyardError('invalid_argument', 'cdnUrl must be http or https', [{ field: 'cdnUrl', reason: 'not http(s)' }]);
  }
  if (url.search || url.hash) {
    throw new SwitchyardError('invalid_argument', 'cdnUrl must have no query or fragment', [
      { field: 'cdnUrl', reason: 'has query or fragment' },
    ]);
  }
  return url.href.replace(/\/+$/, '');
}
