import { createAssetService } from './assets/asset-service.js';
import type { AssetService } from './assets/types.js';
import { systemClock, type Clock } from './clock.js';
import { SwitchyardError } from './errors.js';
import { createUlidSource, type IdSource } from './ids.js';
import type { AssetStore } from './ports/asset-store.js';
import type { BlobStore } from './ports/blob-store.js';
import type { RouteStore } from './ports/route-store.js';
import { createRouteService } from './routes/route-service.js';
import { createUrlSigner, randomUrlSigningKey, type UrlSigningKey } from './assets/signed-urls.js';
import type { RouteService } from './routes/types.js';

export const DEFAULT_MAX_UPLOAD_BYTES = 104_857_600;

export interface SwitchyardOptions {
  readonly routeStore: RouteStore;
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
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
  /** Route watches: how often a watched workspace is checked for changes made through other instances (ms, default 250), and the heartbeat interval (ms, default 15000). */
  readonly routeWatch?: { readonly pollMs?: number | undefined; readonly heartbeatMs?: number | undefined } | undefined;
  readonly clock?: Clock | undefined;
  readonly ids?: IdSource | undefined;
}

/** The core, wired to its adapters. */
export interface Switchyard {
  readonly routes: RouteService;
  readonly assets: AssetService;
}

/** Wires the core to its adapters. Options are validated and frozen here, once. */
export function createSwitchyard(options: SwitchyardOptions): Switchyard {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createUlidSource();
  const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  if (!Number.isSafeInteger(maxUploadBytes) || maxUploadBytes < 0) {
    throw new SwitchyardError('invalid_argument', 'maxUploadBytes must be a non-negative integer', [{ field: 'maxUploadBytes', reason: 'not a non-negative integer' }]);
  }
  const cdnUrl = normalizeCdnUrl(options.cdnUrl);
  return Object.freeze({
    routes: createRouteService({ store: options.routeStore, clock, ids, watchPollMs: options.routeWatch?.pollMs, watchHeartbeatMs: options.routeWatch?.heartbeatMs }),
    assets: createAssetService({
      assetStore: options.assetStore,
      routeStore: options.routeStore,
      blobStore: options.blobStore,
      clock,
      ids,
      cdnUrl,
      maxUploadBytes,
      urlSigner: createUrlSigner(options.urlSigningKeys ?? [randomUrlSigningKey()]),
    }),
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
    throw new SwitchyardError('invalid_argument', 'cdnUrl must have no query or fragment', [{ field: 'cdnUrl', reason: 'has query or fragment' }]);
  }
  return url.href.replace(/\/+$/, '');
}
