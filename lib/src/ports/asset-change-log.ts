import type { AssetRecord } from './asset-store.js';
import type { AssetChangeReason, AssetVersionRecord } from './asset-retention.js';

/** What happened to an asset: the closed set of change types (CONTRACT.md, "Asset changes"). */
export const ASSET_CHANGE_TYPES = ['asset.created', 'asset.replaced', 'asset.updated', 'asset.deleted'] as const;
export type AssetChangeType = (typeof ASSET_CHANGE_TYPES)[number];

/** Who makes a write, and when: logged with the change it makes. */
export interface ChangeAuthor {
  /** The principal's subject (the token's `sub`). */
  readonly actor: string;
  /** From the service's clock; stores keep milliseconds. */
  readonly time: Date;
}

/** The file an `asset.replaced` change displaced. */
export interface ReplacedFile {
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
}

interface ChangeBase extends ChangeAuthor {
  /** The workspace revision this change brought the assets to; a batch delete's changes share one. */
  readonly revision: number;
  readonly assetId: string;
  /**
   * Absent for a plain write. `restore`: an `asset.replaced` that made a
   * version current again, or an `asset.created` that brought the asset back
   * from the trash. `purge`: an `asset.deleted` that removed the asset for
   * good, or an `asset.updated` that purged versions.
   */
  readonly reason?: AssetChangeReason | undefined;
  /** The version a restore made current, or the versions a purge removed. */
  readonly versionIds?: readonly string[] | undefined;
}

/** One entry of a workspace's asset change log, as the asset store keeps it. */
export type AssetChangeRecord =
  | (ChangeBase & { readonly type: 'asset.created' | 'asset.updated'; readonly asset: AssetRecord })
  | (ChangeBase & { readonly type: 'asset.replaced'; readonly asset: AssetRecord; readonly previous: ReplacedFile })
  | (ChangeBase & { readonly type: 'asset.deleted'; readonly asset?: undefined });

/** A write that stood: the record as written (for a delete, as it was) and the change logged with it. */
export interface AssetWrite {
  readonly record: AssetRecord;
  readonly change: AssetChangeRecord;
  /** Versions the write removed (trimmed past `keep`, or purged with the asset): their blobs are the caller's to delete. */
  readonly droppedVersions?: readonly AssetVersionRecord[] | undefined;
}

/** Which of an asset's changes `history` returns: newest first, below a revision, at most `limit`. */
export interface AssetHistoryQuery {
  /** Only changes at revisions below this one (the last revision of the previous page). */
  readonly before?: number | undefined;
  readonly limit: number;
}

/** A change as a store builds it, before it gives it a revision and its author. */
export type AssetChangeDraft = AssetChangeRecord extends infer Change
  ? Change extends AssetChangeRecord
    ? Omit<Change, 'revision' | 'actor' | 'time'>
    : never
  : never;
