import { requireScope } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { toSwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import type { AssetRecord, AssetStore } from '../ports/asset-store.js';
import type { RouteStore } from '../ports/route-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { assetNotFound } from './asset-errors.js';
import { discardUnreferencedBlob } from './blob-cleanup.js';
import { blobKeyFor } from './blob-naming.js';
import { validateLabel } from './label.js';
import { cleanName } from './asset-name.js';
import { openFile } from './open-file.js';
import { listAssets } from './list-assets.js';
import { batchDeleteAssets, deleteAsset } from './delete-assets.js';
import { replaceAsset } from './replace-asset.js';
import { listVersions, openVersion, restoreVersion } from './asset-versions.js';
import { listTrash, purgeFromTrash, restoreFromTrash } from './asset-trash.js';
import { storeContent } from './store-content.js';
import type { MediaDescriber } from './media/describe-media.js';
import { toAsset } from './to-asset.js';
import type { AssetService } from './types.js';
import type { UrlSigner } from './signed-urls.js';
import type { VariantMaker } from './transform/variants.js';
import type { FileCache } from './file-cache.js';
import { createSignedUrl, revokeSignedUrls, updateAsset } from './asset-attributes.js';
import { getPolicy, policyInForce, setPolicy } from './policy-operations.js';
import { validateVisibility } from './visibility.js';
import { lateField } from './late-field.js';
import { assetChangesSince, assetHistory, assetRevision } from './asset-changes.js';
import { systemTime, type TimeSource } from '../clock.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { revisionFollowers } from '../changes/revision-followers.js';
import { announcingAssetStore } from './announcing-asset-store.js';
import type { AssetChangeNotices } from './asset-change-notices.js';
import { watchAssets } from './watch-assets.js';

export interface AssetServiceDeps {
  readonly assetStore: AssetStore;
  /** For the route count in `usage`. */
  readonly routeStore: Pick<RouteStore, 'count'>;
  readonly blobStore: BlobStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Public base URL of files, without a trailing slash. */
  readonly cdnUrl: string;
  /** The server's largest file; a workspace policy may only lower it. */
  readonly maxUploadBytes: number;
  readonly urlSigner: UrlSigner;
  /** Derived images (transformations), stored beside their source blobs. */
  readonly variants: VariantMaker;
  /** Small files served by url, kept in memory. */
  readonly fileCache: FileCache;
  /** Reads each stored file's media facts (dimensions, duration, pages, placeholder). */
  readonly describer: MediaDescriber;
  /** Asset watches: polling, the safety poll with a feed, heartbeats (as route watches'), the feed, and their timers. */
  readonly watch: AssetWatchConfig;
}

export interface AssetWatchConfig {
  readonly pollMs: number;
  readonly safetyPollMs: number;
  readonly heartbeatMs: number;
  readonly feed?: ChangeFeed | undefined;
  readonly time?: TimeSource | undefined;
  /** Told of every write this service commits, with the assets it changed (the core's `assetChanges`). */
  readonly notices?: AssetChangeNotices | undefined;
}

/** What storing a file needs of the service's dependencies. */
export function contentDeps(deps: AssetServiceDeps) {
  return { blobStore: deps.blobStore, describer: deps.describer, maxPixels: deps.variants.config.maxPixels };
}

/** Asset operations over the given stores; every operation checks scope and workspace. */
export function createAssetService(options: AssetServiceDeps): AssetService {
  const { watch: watchConfig } = options;
  const time = watchConfig.time ?? systemTime;
  const { revisions, changed } = revisionFollowers(options.assetStore, { log: 'assets', ...watchConfig, time });
  // Every committed write wakes this process's watchers, is announced to the other instances', and told in process.
  const announcing = announcingAssetStore(options.assetStore, (workspace, revision, assetIds) => {
    changed(workspace, revision, assetIds);
    watchConfig.notices?.committed(workspace, revision, assetIds);
  });
  const deps: AssetServiceDeps = Object.freeze({ ...options, assetStore: announcing });
  const watching = { assetStore: deps.assetStore, cdnUrl: options.cdnUrl, revisions, heartbeatMs: watchConfig.heartbeatMs, clock: time };
  const { assetStore, blobStore, clock, ids, cdnUrl } = deps;

  return Object.freeze({
    async upload(principal, input) {
      requireScope(principal, 'assets:write');
      // A label given up front is judged before any byte is read.
      const labelOf = lateField(input.label, validateLabel);
      const visibilityOf = lateField(input.visibility, validateVisibility);
      const name = cleanName(input.filename);
      const { workspace } = principal;
      const policy = await policyInForce(deps, workspace);
      const id = ids.next('asset');
      const blobId = ids.next('blob');
      const blobKey = blobKeyFor(workspace, id, blobId);
      const content = await storeContent(contentDeps(deps), blobKey, input.body, policy);
      const now = new Date(clock.now().getTime());
      let record: AssetRecord;
      try {
        const label = labelOf();
        const visibility = visibilityOf() ?? policy.defaultVisibility;
        record = {
          id,
          workspace,
          label,
          name,
          blobId,
          blobKey,
          ...content,
          uploadedAt: now,
          createdAt: now,
          version: 1,
          visibility,
          linkEpoch: 0,
        };
        await assetStore.insert(record, { actor: principal.subject, time: now });
      } catch (error) {
        // Nothing half-written: no record, so no blob either.
        await discardUnreferencedBlob(assetStore, blobStore, blobKey);
        throw toSwitchyardError(error);
      }
      return toAsset(record, cdnUrl);
    },

    async get(principal, id) {
      requireScope(principal, 'assets:read');
      const assetId = assertId('asset', id);
      const record = await assetStore.get(principal.workspace, assetId);
      if (!record) throw assetNotFound(assetId);
      return toAsset(record, cdnUrl);
    },

    replace: (principal, id, input) => replaceAsset(deps, principal, id, input),

    openFile: (path, fileOptions) => openFile(deps, path, fileOptions),

    list: (principal, input) => listAssets(assetStore, cdnUrl, principal, input),

    delete: (principal, id, deleteOptions) => deleteAsset(deps, principal, id, deleteOptions),

    listVersions: (principal, id) => listVersions(deps, principal, id),

    openVersion: (principal, id, versionId) => openVersion(deps, principal, id, versionId),

    restoreVersion: (principal, id, versionId) => restoreVersion(deps, principal, id, versionId),

    listTrash: (principal, input) => listTrash(deps, principal, input),

    restoreFromTrash: (principal, id) => restoreFromTrash(deps, principal, id),

    purgeFromTrash: (principal, id) => purgeFromTrash(deps, principal, id),

    batchDelete: (principal, ids) => batchDeleteAssets(deps, principal, ids),

    async usage(principal) {
      requireScope(principal, 'assets:read');
      const [{ assets, bytes, versionBytes, trashBytes }, routes] = await Promise.all([
        assetStore.usage(principal.workspace),
        deps.routeStore.count(principal.workspace),
      ]);
      return { assets, bytes, versionBytes, trashBytes, routes };
    },

    update: (principal, id, changes) => updateAsset(deps, principal, id, changes),

    createSignedUrl: (principal, id, input) => createSignedUrl(deps, principal, id, input),

    revokeSignedUrls: (principal, id) => revokeSignedUrls(deps, principal, id),

    getPolicy: (principal) => getPolicy(deps, principal),

    setPolicy: (principal, policy) => setPolicy(deps, principal, policy),

    revision: (principal) => assetRevision(deps, principal),

    changesSince: (principal, sinceRevision, limit) => assetChangesSince(deps, principal, sinceRevision, limit),

    history: (principal, id, input) => assetHistory(deps, principal, id, input),

    watch: (principal, watchOptions) => watchAssets(watching, principal, watchOptions),
  } satisfies AssetService);
}
