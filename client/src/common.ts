// What both entry points export beside their own createSwitchyardClient.
export { createRestClient, SwitchyardRestError } from './rest.js';
export type {
  RestApplyResult,
  RestAsset,
  RestAssetChange,
  RestAssetChangePage,
  RestAssetVersion,
  RestCaller,
  RestClient,
  RestClientOptions,
  RestDesiredRoute,
  RestErrorDetail,
  RestKey,
  RestWebhook,
  RestDelivery,
  RestDeliveryAttempt,
  RestMatch,
  RestRoute,
  RestRouteChange,
  RestRouteChangePage,
  RestTrashedAsset,
  RestTrashPage,
  RestUploadSource,
  RestWorkspacePolicy,
  RestWorkspaceUsage,
} from './rest.js';
export type { ClientOptions, Protocol, TokenSource } from './options.js';
export { watchRouteTable, RouteWatchRefused } from './route-watch.js';
export type { WatchRouteTableOptions, WatchedRouteTable } from './route-watch.js';
export { watchAssets, AssetWatchRefused } from './asset-watch.js';
export type { AssetWatch, AssetWatchEvent, WatchAssetsOptions } from './asset-watch.js';
export type { EventStreamOptions } from './event-stream.js';
export type { WebByteSource } from './web-sources.js';
export type { RpcClient } from './rpc-client.js';
export type { ReplaceOptions, UploadOptions } from './uploads.js';
export { Code, ConnectError } from '@connectrpc/connect';
export type { Asset, Route, MatchRouteResponse, Upload } from '@switchyard/proto';
