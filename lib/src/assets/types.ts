import type { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import type { ByteRange } from '../ports/blob-store.js';
import type { AssetChangeType, ReplacedFile } from '../ports/asset-change-log.js';
import type { AssetChangeReason } from '../ports/asset-retention.js';
import type { Visibility } from './visibility.js';
import type { TransformQuery } from './transform/transform-params.js';
import type { WorkspacePolicy, WorkspacePolicyInput } from './workspace-policy.js';

/** An asset as callers see it. */
export interface Asset {
  readonly id: string;
  /** Sniffed media type. */
  readonly type: string;
  /** Bytes. */
  readonly size: number;
  /** Absolute URL under the CDN base, ending in the extension of `type`. */
  readonly url: string;
  readonly uploadedAt: Date;
  readonly createdAt: Date;
  /** Empty string when none was given. */
  readonly label: string;
  /**
   * The client's file name (from the upload, or as last set by `update`):
   * at most 255 characters, no control characters; `""` when none. Never
   * used for the type or the url.
   */
  readonly name: string;
  /** Lower-case hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** Pixels as shown, for images and videos whose headers could be read. */
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  /** Audio and video whose length could be read. */
  readonly durationMs?: number | undefined;
  /** PDFs whose page tree could be read. */
  readonly pages?: number | undefined;
  /** Images: a ThumbHash (base64), which a client decodes to a blurred preview while the image loads. */
  readonly placeholder?: string | undefined;
  /** `private` files are readable only through signed urls. */
  readonly visibility: Visibility;
}

/** Bytes arriving from a caller: a byte stream or any async iterable of chunks. */
export type ByteSource = Readable | AsyncIterable<Uint8Array>;

export interface UploadInput {
  readonly body: ByteSource;
  /**
   * Free text, at most 200 characters. A function is asked once the body has
   * been read, for transports whose label arrives after the bytes (a form
   * field behind its file field); an invalid label then stores nothing.
   */
  readonly label?: string | (() => string | undefined) | undefined;
  /**
   * The client's file name: the asset's `name`, control characters removed
   * and cut to 255 characters (asset-name.ts). Never trusted for the type.
   */
  readonly filename?: string | undefined;
  /** The client's declared type: a hint only. */
  readonly declaredType?: string | undefined;
  /** Default: the workspace policy's `defaultVisibility`. A function is asked after the body, like `label`. */
  readonly visibility?: Visibility | (() => Visibility | undefined) | undefined;
}

export interface ReplaceInput {
  readonly body: ByteSource;
  /** The new file's name, cleaned as an upload's; absent or empty, the asset keeps its name. */
  readonly filename?: string | undefined;
  readonly declaredType?: string | undefined;
  /** Default: unchanged. A function is asked after the body. */
  readonly visibility?: Visibility | (() => Visibility | undefined) | undefined;
}

/** What `update` changes; absent fields stay. */
export interface AssetUpdate {
  readonly label?: string | undefined;
  /** The new name; control characters are removed, more than 255 characters is `invalid_argument`; `""` clears it. */
  readonly name?: string | undefined;
  readonly visibility?: Visibility | undefined;
}

/** Image transformation parameters a signed url carries (and its signature covers); `format` may be `auto`. */
export interface SignedUrlTransform {
  readonly w?: number | undefined;
  readonly h?: number | undefined;
  readonly fit?: string | undefined;
  readonly format?: string | undefined;
  readonly q?: number | undefined;
  /** A video's poster frame at this many milliseconds (`?frame=<ms>`). */
  readonly frame?: number | undefined;
}

export interface SignedUrlInput {
  /** Seconds the url works, 1 to 604800 (7 days). */
  readonly expiresIn: number;
  readonly transform?: SignedUrlTransform | undefined;
}

export interface SignedUrl {
  readonly url: string;
  /** The url is refused from this instant on (whole seconds). */
  readonly expiresAt: Date;
}

export interface OpenFileOptions {
  /** Inclusive range; must start inside the file. */
  readonly range?: ByteRange | undefined;
  /** Only the metadata, no bytes (HEAD, conditional requests). */
  readonly infoOnly?: boolean | undefined;
  /** The url's query string (without `?`): a private file needs its signature there. */
  readonly query?: string | undefined;
  /** Transform parameters (`w`, `h`, `fit`, `format`, `q`, `format` resolved from `auto`): the file is a derived image. */
  readonly transform?: TransformQuery | undefined;
}

/** A current file behind a public asset URL. */
export interface StoredFile {
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly uploadedAt: Date;
  /** A private file was opened through a valid signed url; caches must not share it. */
  readonly visibility: Visibility;
  /**
   * The name to save the file as: the asset's name (a derived image's with
   * the extension of its format), else the asset id and the type's extension.
   */
  readonly name: string;
  /** The inclusive range `body` yields (the whole file when none was asked). */
  readonly range: ByteRange;
  /**
   * Absent with `infoOnly` or for an empty file. With `bytes` it is made on
   * first read (an accessor, not an own property: read it, do not spread the
   * file to pass it on).
   */
  readonly body?: Readable | undefined;
  /**
   * The bytes `body` yields, when they are in memory already (a small file
   * from the file cache): a reader may take them whole and never touch
   * `body`, which is then not even made. Read-only: the buffer is the cache's
   * own, served to every later reader.
   */
  readonly bytes?: Buffer | undefined;
}

/** Asset operations; each checks the principal's scope and workspace. */
/** `list`'s filters and place; every field optional. */
export interface AssetListInput {
  /** 1-1000; 0 or unset: 50. */
  readonly pageSize?: number | undefined;
  /** The `nextPageToken` of the previous page. */
  readonly pageToken?: string | undefined;
  /** `image/png`, or `image/*` for every image type. */
  readonly type?: string | undefined;
  /** Exactly this label. */
  readonly label?: string | undefined;
  /** Names starting with this, ignoring case (`%` and `_` are plain characters); empty: every name. */
  readonly q?: string | undefined;
}

export interface AssetPage {
  readonly assets: readonly Asset[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

export interface BatchDeleteResult {
  readonly id: string;
  readonly code: 'ok' | 'not_found' | 'invalid_argument';
}

/** What a workspace holds. */
export interface WorkspaceUsage {
  readonly assets: number;
  /** Bytes of the assets' current files: what `maxUploadBytes` and listings know of. */
  readonly bytes: number;
  /** Bytes of the live assets' versions (replaced files kept). */
  readonly versionBytes: number;
  /** Bytes of the trash: deleted assets' files and their versions. */
  readonly trashBytes: number;
  readonly routes: number;
}

/** A file an asset held before a replace, kept until `keepVersions` or `retentionDays` ends it. */
export interface AssetVersion {
  /** `ver_…`. */
  readonly id: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  /** The asset's name while this file was current. */
  readonly name: string;
  readonly uploadedAt: Date;
  /** Who uploaded it (the token's `sub`); `""` for files uploaded before versions were kept. */
  readonly actor: string;
  /** When a replace made it a version. */
  readonly replacedAt: Date;
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly pages?: number | undefined;
  readonly placeholder?: string | undefined;
}

/** A version's bytes. */
export interface VersionFile {
  readonly version: AssetVersion;
  /** Absent for an empty file. */
  readonly body?: Readable | undefined;
}

/** A deleted asset in the workspace's trash. */
export interface TrashedAsset extends Asset {
  readonly deletedAt: Date;
  /** Who deleted it (the token's `sub`). */
  readonly deletedBy: string;
  /** When `switchyard gc` purges it: `deletedAt` plus the policy's `retentionDays` as it is now. */
  readonly purgeAt: Date;
}

export interface TrashPage {
  /** Newest id first. */
  readonly assets: readonly TrashedAsset[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

export interface DeleteOptions {
  /** Skip the trash: the asset, its versions and their bytes go at once (scope workspace:admin). */
  readonly purge?: boolean | undefined;
}

/** A page of the trash: every field optional. */
export interface TrashListInput {
  /** 1-1000; 0 or unset: 50. */
  readonly pageSize?: number | undefined;
  readonly pageToken?: string | undefined;
}

/** One change of a workspace's assets, as callers see it. */
export interface AssetChange {
  readonly type: AssetChangeType;
  /** The workspace's asset revision this change brought it to; a batch delete's changes share one. */
  readonly revision: number;
  readonly time: Date;
  /** Who made it: the token's `sub`. */
  readonly actor: string;
  readonly assetId: string;
  /** The asset after the change; `null` for a delete. */
  readonly asset: Asset | null;
  /** `asset.replaced` only: the file the replace displaced. */
  readonly previous?: ReplacedFile | undefined;
  /** Absent for plain writes: `restore` (of a version, or from the trash) or `purge` (for good, or of versions). */
  readonly reason?: AssetChangeReason | undefined;
  /** The version a restore made current, or the versions a purge removed. */
  readonly versionIds?: readonly string[] | undefined;
}

/** The changes after a revision, or `reset` when they are no longer kept (list again, then follow from `revision`). */
export type AssetChangesSince =
  | { readonly reset: false; readonly changes: readonly AssetChange[] }
  | { readonly reset: true; readonly revision: number };

/** An asset history's place: every field optional. */
export interface AssetHistoryInput {
  /** 1-1000; 0 or unset: 50. */
  readonly pageSize?: number | undefined;
  /** The `nextPageToken` of the previous page. */
  readonly pageToken?: string | undefined;
}

export interface AssetChangePage {
  /** Newest first. */
  readonly changes: readonly AssetChange[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

/**
 * What a watch of a workspace's assets yields: each change in revision
 * order (a batch delete's changes share their revision), `synced` when the
 * watch started from now (the revision it follows from), `reset` when the
 * changes after the asked revision are no longer kept (list again; changes
 * after `revision` follow), `heartbeat` while nothing changes.
 */
export type AssetWatchEvent =
  | { readonly type: 'change'; readonly revision: number; readonly change: AssetChange }
  | { readonly type: 'synced' | 'reset' | 'heartbeat'; readonly revision: number };

export interface WatchAssetsOptions {
  /** Only the changes after this revision (`reset` when they are no longer kept); unset: from now on, starting with `synced`. */
  readonly sinceRevision?: number | undefined;
  /** Ends the watch. */
  readonly signal?: AbortSignal | undefined;
}

export interface AssetService {
  upload(principal: Principal, input: UploadInput): Promise<Asset>;
  get(principal: Principal, id: string): Promise<Asset>;
  replace(principal: Principal, id: string, input: ReplaceInput): Promise<Asset>;
  /**
   * Opens the current file behind a public URL path
   * (`<asset id>/<blob id>.<ext>`, the part after the CDN base). Public links
   * need no principal. Unknown or replaced-away paths are `not_found`.
   */
  openFile(path: string, options?: OpenFileOptions): Promise<StoredFile>;
  /** A page of the workspace's assets, newest first (see list-assets.ts). */
  list(principal: Principal, input: AssetListInput): Promise<AssetPage>;
  /**
   * Deletes an asset: its id and urls are `not_found` from then on. It goes
   * to the trash while the policy's `retentionDays` keep it; with `purge`
   * (scope workspace:admin) or `retentionDays: 0`, it and its versions are gone.
   */
  delete(principal: Principal, id: string, options?: DeleteOptions): Promise<void>;
  /** Deletes 1-1000 assets, with an answer per id. */
  batchDelete(principal: Principal, ids: readonly string[]): Promise<BatchDeleteResult[]>;
  /** The asset's kept versions, newest first (scope assets:read). */
  listVersions(principal: Principal, id: string): Promise<AssetVersion[]>;
  /** A version's bytes (scope assets:read); a version has no public url. */
  openVersion(principal: Principal, id: string, versionId: string): Promise<VersionFile>;
  /** Makes a version current again, as a replace: the current file becomes a version (scope assets:write). */
  restoreVersion(principal: Principal, id: string, versionId: string): Promise<Asset>;
  /** A page of the workspace's trash (scope assets:read). */
  listTrash(principal: Principal, input: TrashListInput): Promise<TrashPage>;
  /** Brings a trashed asset back with its id, name, label, visibility and versions; links signed before stay dead (scope assets:write). */
  restoreFromTrash(principal: Principal, id: string): Promise<Asset>;
  /** Removes a trashed asset, its versions and their bytes for good (scope assets:write). */
  purgeFromTrash(principal: Principal, id: string): Promise<void>;
  /** The workspace's asset count, stored bytes (current, versions, trash) and route count. */
  usage(principal: Principal): Promise<WorkspaceUsage>;
  /** Changes an asset's label, name or visibility (scope assets:write). */
  update(principal: Principal, id: string, changes: AssetUpdate): Promise<Asset>;
  /** A url of the asset's current file that works, even for a private asset, until it expires (scope assets:read). */
  createSignedUrl(principal: Principal, id: string, input: SignedUrlInput): Promise<SignedUrl>;
  /** Ends every signed url of the asset made so far (scope assets:write). */
  revokeSignedUrls(principal: Principal, id: string): Promise<void>;
  /** The workspace's policy in force (scope workspace:admin). */
  getPolicy(principal: Principal): Promise<WorkspacePolicy>;
  /** Replaces the workspace's policy; absent fields take their defaults (scope workspace:admin). */
  setPolicy(principal: Principal, policy: WorkspacePolicyInput): Promise<WorkspacePolicy>;
  /** The workspace's asset revision, 0 before its first change (scope assets:read). */
  revision(principal: Principal): Promise<number>;
  /** The changes after `sinceRevision`, ascending, at most `limit` (default 100, at most 1000) revisions, each whole (scope assets:read). */
  changesSince(principal: Principal, sinceRevision: number, limit?: number): Promise<AssetChangesSince>;
  /** A page of an asset's kept changes, newest first; a deleted asset's too (scope assets:read). */
  history(principal: Principal, id: string, input: AssetHistoryInput): Promise<AssetChangePage>;
  /** The workspace's asset changes as they happen, through any instance sharing the store (scope assets:read); see `AssetWatchEvent`. */
  watch(principal: Principal, options?: WatchAssetsOptions): AsyncIterable<AssetWatchEvent>;
}
