export type {
  NewRouteRecord,
  RouteChange,
  RouteCursor,
  RouteScope,
  RouteRecord,
  RouteRecordUpdate,
  RouteRevisionWrite,
  RouteRevisionWritten,
  RouteStore,
  RouteWriteOrigin,
} from './route-store.js';
export { revisionRefusals } from './revision-refusals.js';
export { wholeRevisions } from './whole-revisions.js';
export type { AssetChanges, AssetContent, AssetListQuery, AssetRecord, AssetStore, FactsQuery, SwapAttributes } from './asset-store.js';
export type {
  AssetChangeDraft,
  AssetChangeRecord,
  AssetChangeType,
  AssetHistoryQuery,
  AssetWrite,
  ChangeAuthor,
  ReplacedFile,
} from './asset-change-log.js';
export { ASSET_CHANGE_TYPES } from './asset-change-log.js';
export type {
  AssetChangeReason,
  AssetUsage,
  AssetVersionRecord,
  DeleteMode,
  ExpiredVersionsQuery,
  KeepVersion,
  TrashedAssetRecord,
  TrashQuery,
} from './asset-retention.js';
export type { BlobStore, BlobInfo, ByteRange, ReadOptions, AbandonedWrites } from './blob-store.js';
export type { TokenVerifier } from './token-verifier.js';
export { assertBlobKey } from './blob-key.js';
export { assertBlobOffset, blobTooShort } from './blob-offset.js';
export type { UploadStore, UploadRecord, UploadPart, UploadIntent, UploadCommit } from './upload-store.js';
export type { ChangeFeed, ChangeFeedListener, ChangeLogName } from './change-feed.js';
export { CHANGE_LOGS, MAX_FEED_IDS } from './change-feed.js';
export { ChangeFeedListeners } from './change-feed-listeners.js';
export type { KeyStore, KeyRecord, KeyListQuery, KeyRoll } from './key-store.js';
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
} from './webhook-store.js';
export { DELIVERY_STATUSES } from './webhook-store.js';
