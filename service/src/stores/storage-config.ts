/** Which database holds the records. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | {
      readonly kind: 'mysql';
      readonly url: string;
      /** Connect and per-query limit before `unavailable` (default DEFAULT_STORAGE_TIMEOUT_MS). */
      readonly timeoutMs?: number | undefined;
    };

/** How long one database query, connection attempt or silent S3 request may take before it counts as down. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5_000;

/** Where the bytes of assets live. Credentials for S3 come from the usual AWS variables via the SDK. */
export type BlobStoreConfig =
  | { readonly kind: 'disk'; readonly root: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly region: string;
      readonly endpoint?: string | undefined;
      /** Path-style addressing, needed by most S3-compatible servers. */
      readonly forcePathStyle: boolean;
      /**
       * Explicit keys, for tests and embedders. The service leaves this unset,
       * so the SDK's default chain (AWS_* variables, profiles, roles) applies.
       */
      readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
      /** Connect limit and the longest a request may go without a byte moving (default DEFAULT_STORAGE_TIMEOUT_MS). */
      readonly timeoutMs?: number | undefined;
    };

export interface StorageConfig {
  readonly database: DatabaseConfig;
  readonly blobs: BlobStoreConfig;
  /** ROUTE_HISTORY: route-table changes kept per workspace for watchers that resume (default 10000). */
  readonly routeHistory?: number | undefined;
  /** ASSET_HISTORY: revisions of a workspace's assets kept in their change log, for watchers that resume and for histories (default 10000). */
  readonly assetHistory?: number | undefined;
}
