// The curated public API of the Switchyard core library.

export { createSwitchyard, DEFAULT_MAX_UPLOAD_BYTES } from './switchyard.js';
export type { Switchyard, SwitchyardOptions, RouteWatchOptions } from './switchyard.js';
export type { RevisionSource } from './routes/revision-watch.js';
export type { AssetChangeNotice, AssetChangeSource } from './assets/asset-change-notices.js';

export { SwitchyardError, ERROR_CODES, isSwitchyardError, toSwitchyardError, invalidArgument } from './errors.js';
export type { ErrorCode, ErrorDetail } from './errors.js';

export { systemClock, systemTime, sleep } from './clock.js';
export type { Clock, TimeSource, Timers, TimerHandle } from './clock.js';
export { ExpiringMap } from './expiring-map.js';
export type { ExpiringMapOptions } from './expiring-map.js';
export { sha256Hex } from './sha256-hex.js';
export { createUlidSource, isId, assertId, ID_PREFIXES } from './ids.js';
export type { IdKind, IdSource } from './ids.js';

export { SCOPES, createPrincipal, requireScope, isScope, WORKSPACE_PATTERN } from './auth/principal.js';
export type { Principal, Scope } from './auth/principal.js';
export { createHmacTokenVerifier, createJwksTokenVerifier, signToken, parseBearer } from './auth/tokens.js';
export type { SignTokenOptions, TokenVerifierOptions, VerifiedTokenCacheOptions } from './auth/tokens.js';
export { createCredentialVerifier } from './auth/credential-verifier.js';

export type { ApiKey, ApiKeyWithSecret, CreateKeyInput, KeyListInput, KeyPage, KeyService } from './keys/types.js';
export { createApiKeys, KEY_PURGE_INTERVAL_MS } from './keys/api-keys.js';
export type { ApiKeyOptions, ApiKeys } from './keys/api-keys.js';
export { createKeyVerifier, DEFAULT_KEY_CACHE_TTL_MS, KEY_LAST_USED_INTERVAL_MS } from './keys/key-verifier.js';
export type { KeyVerifier, KeyVerifierOptions } from './keys/key-verifier.js';
export { KEY_RETENTION_MS } from './keys/key-service.js';
export { DEFAULT_KEY_MAX_TTL_MS, MAX_KEY_NAME_LENGTH, MAX_ROLL_GRACE_SECONDS } from './keys/key-input.js';
export { KEY_SECRET_PREFIX, isWellFormedKeySecret, keySecretDigest, newKeySecret } from './keys/key-secret.js';

export type {
  Route,
  CreateRouteInput,
  MatchRouteInput,
  RouteMatch,
  RouteService,
  UpdateRouteInput,
  RouteListInput,
  RoutePage,
  RouteEvent,
  WatchRoutesOptions,
  ApplyRoutesInput,
  ApplyRoutesResult,
  RouteUpdate,
  RouteChangeEntry,
  RouteChangeListInput,
  RouteChangePage,
  RollbackRoutesInput,
} from './routes/types.js';
export { MAX_APPLY_ROUTES } from './routes/apply-input.js';
export { MAX_OWNER_LENGTH } from './routes/owner.js';
export { RouteTable } from './routes/route-table.js';
export { SyncedRouteTable } from './routes/synced-route-table.js';

export type {
  Asset,
  ByteSource,
  UploadInput,
  ReplaceInput,
  OpenFileOptions,
  StoredFile,
  AssetService,
  AssetListInput,
  AssetPage,
  AssetChange,
  AssetChangesSince,
  AssetChangePage,
  AssetHistoryInput,
  AssetWatchEvent,
  WatchAssetsOptions,
  BatchDeleteResult,
  WorkspaceUsage,
  AssetVersion,
  VersionFile,
  TrashedAsset,
  TrashPage,
  TrashListInput,
  DeleteOptions,
  AssetUpdate,
  SignedUrl,
  SignedUrlInput,
  SignedUrlTransform,
} from './assets/types.js';
export { VISIBILITIES, isVisibility } from './assets/visibility.js';
export type { Visibility } from './assets/visibility.js';
export {
  UNSUPPORTED_MEDIA_TYPE_FIELD,
  DEFAULT_KEEP_VERSIONS,
  DEFAULT_RETENTION_DAYS,
  MAX_KEEP_VERSIONS,
  MAX_RETENTION_DAYS,
} from './assets/workspace-policy.js';
export type { WorkspacePolicy, WorkspacePolicyInput, StoredWorkspacePolicy } from './assets/workspace-policy.js';
export { MAX_SIGNED_URL_SECONDS, MIN_URL_KEY_BYTES, DOWNLOAD_PARAM } from './assets/signed-urls.js';
export { MAX_NAME_LENGTH, nameKey } from './assets/asset-name.js';
export {
  parseTransform,
  hasTransform,
  DEFAULT_TRANSFORM_SIZES,
  TRANSFORM_FORMATS,
  TRANSFORM_FITS,
  TRANSFORM_PARAMS,
  MAX_FRAME_MS,
} from './assets/transform/transform-params.js';
export type { ImageTransform, TransformQuery, TransformFormat, TransformFit } from './assets/transform/transform-params.js';
export { transformImage, TRANSFORMABLE_TYPES } from './assets/transform/transform-image.js';
export type { TransformConfig, TransformObserver, TransformOutcome } from './assets/transform/variants.js';
export { DEFAULT_FILE_CACHE, type FileCacheConfig } from './assets/file-cache.js';
export { DEFAULT_TRANSFORM_MAX_PIXELS } from './switchyard.js';
export type { UrlSigningKey } from './assets/signed-urls.js';
export { sniffMediaType } from './assets/sniff.js';
export { MEDIA_FACTS_VERSION } from './assets/media/media-facts.js';
export type { MediaFacts, StoredFacts } from './assets/media/media-facts.js';
export { DEFAULT_MEDIA_FACTS } from './assets/media/describe-media.js';
export type { MediaFactsConfig, DescribeObserver } from './assets/media/describe-media.js';
export type { ProbeOutcome, ProbeCost } from './assets/media/probe-pool.js';
export type { ProbeKind } from './assets/media/probe-protocol.js';
export { STRIPPABLE_TYPES } from './assets/media/strip-metadata.js';
export { DEFAULT_POSTER_FRAMES } from './assets/transform/poster-frame.js';
export type { PosterFrameConfig } from './assets/transform/poster-frame.js';

export type {
  ResumableUploads,
  Upload,
  CreateUploadInput,
  AppendInput,
  UploadIntentInput,
  UploadChecksum,
  UploadChecksumAlgorithm,
} from './uploads/types.js';
export { UPLOAD_CHECKSUM_ALGORITHMS } from './uploads/types.js';
export { CHECKSUM_MISMATCH_FIELD } from './uploads/store-part.js';
export { DEFAULT_FINISH_CLAIM_MS, DEFAULT_UPLOAD_EXPIRY_MS, MAX_CONCAT_PARTS, UPLOAD_BUSY_FIELD } from './uploads/resumable-uploads.js';

export type { UploadStore, UploadRecord, UploadPart, UploadIntent, UploadCommit } from './ports/index.js';
export type {
  RouteRecord,
  NewRouteRecord,
  RouteRecordUpdate,
  RouteChange,
  RouteCursor,
  RouteScope,
  RouteStore,
  RouteWriteOrigin,
  RouteRevisionWrite,
  RouteRevisionWritten,
  AssetContent,
  AssetChanges,
  AssetRecord,
  AssetStore,
  AssetListQuery,
  FactsQuery,
  SwapAttributes,
  AssetChangeDraft,
  AssetChangeRecord,
  AssetChangeType,
  AssetHistoryQuery,
  AssetWrite,
  ChangeAuthor,
  ReplacedFile,
  AssetChangeReason,
  AssetUsage,
  AssetVersionRecord,
  DeleteMode,
  ExpiredVersionsQuery,
  KeepVersion,
  TrashedAssetRecord,
  TrashQuery,
  BlobStore,
  BlobInfo,
  ByteRange,
  ReadOptions,
  AbandonedWrites,
  TokenVerifier,
  KeyStore,
  KeyRecord,
  KeyListQuery,
  KeyRoll,
} from './ports/index.js';
export { assertBlobKey, assertBlobOffset, blobTooShort, revisionRefusals, wholeRevisions } from './ports/index.js';
export type { ChangeFeed, ChangeFeedListener, ChangeLogName } from './ports/index.js';
export { ChangeFeedListeners, ASSET_CHANGE_TYPES, CHANGE_LOGS, MAX_FEED_IDS } from './ports/index.js';

export { collectGarbage, DEFAULT_GC_GRACE_MS } from './maintenance/collect-garbage.js';
export type { CollectGarbageOptions, GarbageReport } from './maintenance/collect-garbage.js';
export { backfillMediaFacts } from './maintenance/backfill-media-facts.js';
export type { BackfillOptions, BackfillReport } from './maintenance/backfill-media-facts.js';

export {
  MemoryRouteStore,
  MemoryAssetStore,
  MemoryBlobStore,
  MemoryUploadStore,
  MemoryKeyStore,
  LoopbackChangeFeed,
  MemoryWebhookStore,
  memoryAdapters,
} from './memory/index.js';
export type { MemoryOutbox } from './memory/index.js';
export * from './webhooks/index.js';
export type {
  AttemptOutcome,
  ClaimQuery,
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryListQuery,
  DeliveryRecord,
  DeliveryStatus,
  WebhookEndpointChanges,
  WebhookEndpointRecord,
  WebhookEventDraft,
  WebhookMessage,
  WebhookStore,
} from './ports/index.js';
export { DELIVERY_STATUSES } from './ports/index.js';
export { DEFAULT_ROUTE_HISTORY } from './memory/memory-route-store.js';
export { DEFAULT_ASSET_HISTORY } from './memory/memory-asset-store.js';
export { DEFAULT_CHANGES_LIMIT } from './assets/asset-changes.js';
export { DEFAULT_WATCH_POLL_MS, DEFAULT_WATCH_HEARTBEAT_MS, DEFAULT_WATCH_SAFETY_POLL_MS } from './routes/route-service.js';
