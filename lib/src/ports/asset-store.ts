import type { Visibility } from '../assets/visibility.js';
import type { StoredWorkspacePolicy } from '../assets/workspace-policy.js';
import type { MediaFacts, StoredFacts } from '../assets/media/media-facts.js';
import type { AssetChangeRecord, AssetHistoryQuery, AssetWrite, ChangeAuthor } from './asset-change-log.js';
import type {
  AssetUsage,
  AssetVersionRecord,
  DeleteMode,
  ExpiredVersionsQuery,
  KeepVersion,
  TrashedAssetRecord,
  TrashQuery,
} from './asset-retention.js';

/** What describes the current file behind an asset; replaced as one unit. Its media facts (`width`, `durationMs`, …) are absent keys where unknown. */
export interface AssetContent extends MediaFacts {
  /** Id of the blob holding the bytes (`bl_…`); part of the public URL. */
  readonly blobId: string;
  /** Key of the bytes in the blob store. */
  readonly blobKey: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly uploadedAt: Date;
  /** MEDIA_FACTS_VERSION of the describer that read the facts; absent or 0: none did (see `listForFacts`). */
  readonly factsVersion?: number | undefined;
}

/** A stored asset, as the asset store keeps it. */
export interface AssetRecord extends AssetContent {
  readonly id: string;
  readonly workspace: string;
  readonly label: string;
  /** The client's file name, cleaned (`""` when none); stores also keep its `nameKey` for `list`. */
  readonly name: string;
  readonly createdAt: Date;
  /** Starts at 1 and grows by one with every replace: the compare-and-set token. */
  readonly version: number;
  readonly visibility: Visibility;
  /** Part of every signed url's signature; raising it ends every link signed before. Starts at 0. */
  readonly linkEpoch: number;
}

/** What `update` may change; absent fields stay as they are. */
export interface AssetChanges {
  readonly label?: string | undefined;
  readonly name?: string | undefined;
  readonly visibility?: Visibility | undefined;
  /** Raise `linkEpoch` by one. */
  readonly revokeLinks?: boolean | undefined;
}

/** What a `swap` writes besides the content; absent fields stay as they are. */
export interface SwapAttributes {
  readonly visibility?: Visibility | undefined;
  readonly name?: string | undefined;
  /** Keep the displaced file as a version; absent, it is kept by nobody (the caller deletes its blob). */
  readonly keepVersion?: KeepVersion | undefined;
  /**
   * The content is this version of the asset, made current again: the
   * version leaves the asset's versions in the same write, which fails
   * (`undefined`) when it is not there; the change says `reason: 'restore'`.
   */
  readonly restoreVersion?: string | undefined;
}

/** Which records `listForFacts` returns: every workspace's, ascending id, described by an older describer than `belowVersion`. */
export interface FactsQuery {
  readonly belowVersion: number;
  /** Only ids above this one (the last id of the previous batch). */
  readonly after?: string | undefined;
  readonly limit: number;
}

/** Which records `list` returns: a workspace's, newest first (descending id), after a cursor. */
export interface AssetListQuery {
  /** Only records whose id sorts below this one (the last id of the previous page). */
  readonly before?: string | undefined;
  readonly limit: number;
  /** Only this media type (`exact`) or this top-level type (`prefix`, e.g. `image/`). */
  readonly type?: { readonly exact: string } | { readonly prefix: string } | undefined;
  /** Only records with exactly this label. */
  readonly label?: string | undefined;
  /** Only records whose `nameKey(name)` starts with this (given in that form; every character literal). */
  readonly namePrefix?: string | undefined;
}

/**
 * Persistence for asset records, with a per-workspace revision and change log.
 *
 * Contract (checked by `assetStoreConformance` in `switchyard/testing`):
 * - Every `insert`, `swap`, `update` and `delete` that writes raises the
 *   workspace's revision by exactly one and logs one change at it
 *   (`asset.created`, `asset.replaced` with the displaced file,
 *   `asset.updated`, `asset.deleted`) by the given author, in the same
 *   transaction as the write: a write that was rolled back is never in the
 *   log, one that was committed always is, and revisions are gap-free in
 *   commit order. `deleteMany` is one revision with a change per asset it
 *   removed. A write that changes nothing (unknown id, lost compare-and-set,
 *   refused duplicate) makes no revision. Each write returns the record and
 *   the change it logged.
 * - `insert` stores a new record (ids are unique; a repeated id throws
 *   `already_exists`).
 * - `get` returns the record only within its own workspace, else `undefined`.
 * - `getByBlobId` finds the record whose *current* blob is `blobId`, in any
 *   workspace (public file URLs carry no workspace); a replaced-away blob id
 *   finds nothing.
 * - `swap` atomically replaces the content (and the visibility and name,
 *   when given) and bumps the version when the
 *   stored version equals `expectedVersion`, returning the new record; it
 *   returns `undefined` (and changes nothing) when the version moved on or the
 *   record is gone. Of N concurrent swaps from one version exactly one wins.
 * - `hasBlobKey` tells whether any record currently points at a blob key (for
 *   garbage collection of orphaned blobs).
 * - `list` returns a workspace's records in descending id order (ids sort by
 *   creation time), only those below `before` when given, filtered, at most
 *   `limit`. `namePrefix` is compared with `nameKey(name)` code point by
 *   code point: `%`, `_` and every other character match only themselves.
 *   Records inserted or deleted meanwhile never make it skip or repeat one
 *   that existed throughout.
 * - `delete` removes a record of the workspace and returns it, or returns
 *   `undefined` (changing nothing) for an unknown id or another workspace's.
 *   `deleteMany` removes every listed record of the workspace in one
 *   transaction and returns those it removed, in the order listed (an id
 *   listed twice is removed once); none found: `[]` and no revision.
 * - `revision` is the workspace's current revision (0 before its first write).
 * - `changesSince(workspace, revision, limit)` returns the changes of the at
 *   most `limit` revisions after `revision`, ascending (a revision's changes
 *   in the order they were made), or `undefined` when `revision` is older
 *   than the history kept (the last `history` revisions of the workspace,
 *   each whole) or ahead of the workspace's.
 * - `history(workspace, assetId, query)` returns the asset's kept changes
 *   (within the same last `history` revisions), newest first, below
 *   `query.before` when given, at most `query.limit`; a deleted asset's
 *   changes stay readable while they are kept.
 * - `update` applies label, name and visibility changes and raises `linkEpoch`
 *   (atomically, so concurrent revocations each count) on a record of the
 *   workspace, leaving content and version alone, and returns the record as
 *   written; `undefined` (changing nothing) for an unknown id or another
 *   workspace's.
 * - Versions (asset-retention.ts): a `swap` with `keepVersion` keeps the
 *   displaced file (its content, name, uploader and the swap's time as
 *   `replacedAt`) as that version and drops the asset's versions past the
 *   `keep` newest (newest: latest `replacedAt`, then highest id), answering
 *   them as `droppedVersions`. A swap with `restoreVersion` takes that
 *   version out of the asset's versions and makes the uploader the version's.
 *   `listVersions` answers a live asset's versions newest first (`[]` for a
 *   trashed or unknown asset); `getVersion` one of them.
 * - Trash: `delete`/`deleteMany` with `{ trash: true }` move the records,
 *   versions and all, to the trash (`asset.deleted`); `getByBlobId`, `get`
 *   and `list` no longer find them. `listTrash` answers them by descending
 *   id; `restoreFromTrash` moves one back with its `linkEpoch` raised by one
 *   (links signed before stay dead), logging `asset.created` with `reason:
 *   'restore'`; `purgeFromTrash` removes one and its versions for good, and
 *   `delete` with `{ purge: true }` a live one (`asset.deleted`, `reason:
 *   'purge'`, `droppedVersions` its versions): both clear the asset's name
 *   from the bodies of its earlier kept changes in the same write. Without
 *   a mode, `delete` removes the record and its versions (`droppedVersions`).
 * - `expiredVersions` answers versions of a workspace's live assets made
 *   before `replacedBefore` or past their asset's `keep` newest;
 *   `purgeVersions` removes the listed versions of one live asset in one
 *   revision (`asset.updated`, `reason: 'purge'`, `versionIds`), answering
 *   `undefined` when none was there. `retainingWorkspaces` names every
 *   workspace holding versions or trash.
 * - `hasBlobKey` counts the blobs of versions and trashed assets as pointed at.
 * - `getPolicy` returns what `setPolicy` last stored for the workspace
 *   (`maxUploadBytes` absent when it was absent), else `undefined`.
 * - `usage` counts a workspace's live records and the bytes of their current
 *   files, of their versions, and of the trash (files and versions).
 * - `listForFacts` returns records of every workspace whose `factsVersion`
 *   (absent: 0) is below `belowVersion`, in ascending id order, only those
 *   above `after` when given, at most `limit`.
 * - `setFacts` replaces the media facts (`width`, `height`, `durationMs`,
 *   `pages`, `placeholder`; absent ones are cleared) and `factsVersion` of a
 *   record of the workspace whose current blob is still `blobId`, leaving
 *   everything else (version included) alone, and returns the record as
 *   written; `undefined` (changing nothing) when the id is unknown, another
 *   workspace's, or its file was replaced meanwhile.
 * - Times round-trip with millisecond precision.
 * - Infrastructure failures throw `SwitchyardError('unavailable')`.
 */
export interface AssetStore {
  insert(record: AssetRecord, author: ChangeAuthor): Promise<AssetWrite>;
  get(workspace: string, id: string): Promise<AssetRecord | undefined>;
  getByBlobId(blobId: string): Promise<AssetRecord | undefined>;
  swap(
    workspace: string,
    id: string,
    expectedVersion: number,
    content: AssetContent,
    attributes: SwapAttributes,
    author: ChangeAuthor,
  ): Promise<AssetWrite | undefined>;
  update(workspace: string, id: string, changes: AssetChanges, author: ChangeAuthor): Promise<AssetWrite | undefined>;
  hasBlobKey(blobKey: string): Promise<boolean>;
  list(workspace: string, query: AssetListQuery): Promise<AssetRecord[]>;
  delete(workspace: string, id: string, author: ChangeAuthor, mode?: DeleteMode): Promise<AssetWrite | undefined>;
  deleteMany(workspace: string, ids: readonly string[], author: ChangeAuthor, mode?: DeleteMode): Promise<AssetWrite[]>;
  listVersions(workspace: string, assetId: string): Promise<AssetVersionRecord[]>;
  getVersion(workspace: string, assetId: string, versionId: string): Promise<AssetVersionRecord | undefined>;
  listTrash(workspace: string, query: TrashQuery): Promise<TrashedAssetRecord[]>;
  restoreFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined>;
  purgeFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined>;
  expiredVersions(workspace: string, query: ExpiredVersionsQuery): Promise<AssetVersionRecord[]>;
  purgeVersions(workspace: string, assetId: string, versionIds: readonly string[], author: ChangeAuthor): Promise<AssetWrite | undefined>;
  retainingWorkspaces(): Promise<string[]>;
  revision(workspace: string): Promise<number>;
  changesSince(workspace: string, revision: number, limit: number): Promise<AssetChangeRecord[] | undefined>;
  history(workspace: string, assetId: string, query: AssetHistoryQuery): Promise<AssetChangeRecord[]>;
  usage(workspace: string): Promise<AssetUsage>;
  listForFacts(query: FactsQuery): Promise<AssetRecord[]>;
  setFacts(workspace: string, id: string, blobId: string, facts: StoredFacts): Promise<AssetRecord | undefined>;
  getPolicy(workspace: string): Promise<StoredWorkspacePolicy | undefined>;
  setPolicy(workspace: string, policy: StoredWorkspacePolicy): Promise<void>;
}
