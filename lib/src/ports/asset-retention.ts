import type { AssetContent, AssetRecord } from './asset-store.js';

// What an asset store keeps of replaced files (versions) and deleted assets (the trash), issue 43.

/** A file an asset held before a replace; its blob stays until the version is purged. */
export interface AssetVersionRecord extends AssetContent {
  /** `ver_…`, given by the replace that kept it. */
  readonly id: string;
  readonly workspace: string;
  readonly assetId: string;
  /** The asset's name while this file was current. */
  readonly name: string;
  /** Who uploaded this file (the token's `sub`); `""` for files uploaded before versions were kept. */
  readonly actor: string;
  /** When a replace made it a version: retention counts from here. */
  readonly replacedAt: Date;
}

/** A deleted asset kept in its workspace's trash, with its versions. */
export interface TrashedAssetRecord extends AssetRecord {
  readonly deletedAt: Date;
  /** Who deleted it (the token's `sub`). */
  readonly deletedBy: string;
}

/** Why a change was made, when not by a plain write. */
export type AssetChangeReason = 'restore' | 'purge';

/** Keep the file a swap displaces as version `versionId`, and only the `keep` newest versions. */
export interface KeepVersion {
  readonly versionId: string;
  /** 1 to 100: the versions the asset keeps, the new one included. */
  readonly keep: number;
}

/** How `delete` and `deleteMany` remove: absent, the record and its versions go (as before there was a trash). */
export interface DeleteMode {
  /** Move the record, with its versions, to the trash. */
  readonly trash?: boolean | undefined;
  /** Remove the record and its versions, log the delete as a purge and clear the asset's name from its earlier changes. */
  readonly purge?: boolean | undefined;
}

/** Which of a workspace's trash `listTrash` returns: descending id, below a cursor. */
export interface TrashQuery {
  readonly before?: string | undefined;
  readonly limit: number;
  /** Only those deleted before this instant (collection). */
  readonly deletedBefore?: Date | undefined;
}

/** Which versions of a workspace's live assets `expiredVersions` returns. */
export interface ExpiredVersionsQuery {
  /** Versions made before this instant. */
  readonly replacedBefore: Date;
  /** And those past the `keep` newest of their asset. */
  readonly keep: number;
  readonly limit: number;
}

/** A workspace's stored bytes, split by what holds them. */
export interface AssetUsage {
  readonly assets: number;
  /** Current files of live assets. */
  readonly bytes: number;
  /** Versions of live assets. */
  readonly versionBytes: number;
  /** Trashed assets: their files and their versions. */
  readonly trashBytes: number;
}
