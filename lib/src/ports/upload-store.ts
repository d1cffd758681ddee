import type { Visibility } from '../assets/visibility.js';

/**
 * One stored run of an upload's bytes, `size` of them from the upload's offset
 * at the time: a blob of its own, or, when the part before it has the same
 * key, the next `size` bytes of that blob (appends written with
 * `BlobStore.writeAt`). So each blob holds the upload's bytes from its start.
 */
export interface UploadPart {
  readonly key: string;
  readonly size: number;
}

/** What the client said about the file when it created the upload. */
export interface UploadIntent {
  /** The client's file name, cleaned as an asset name (asset-name.ts): the asset's `name` when the upload finishes. */
  readonly filename?: string | undefined;
  readonly label?: string | undefined;
  readonly visibility?: Visibility | undefined;
  /** The asset whose file the finished upload replaces; absent: a new asset. */
  readonly replace?: string | undefined;
}

/** A resumable upload, as the upload store keeps it. */
export interface UploadRecord {
  /** `up_…` */
  readonly id: string;
  readonly workspace: string;
  /** The total size, once known (absent while the client defers it). */
  readonly length: number | undefined;
  /** Bytes received and stored so far. */
  readonly offset: number;
  /** The stored runs of bytes, in order; their sizes add up to `offset`. */
  readonly parts: readonly UploadPart[];
  /** A part of a later concatenation: it never becomes an asset on its own. */
  readonly partial: boolean;
  readonly intent: UploadIntent;
  readonly createdAt: Date;
  /** Unfinished past this time, the upload is gone. */
  readonly expiresAt: Date;
  /** The asset the finished upload made or replaced. */
  readonly assetId: string | undefined;
  /** When the append lease now held was taken or last renewed (set by the store when reading; ignored on insert). */
  readonly appendLeaseSince?: Date | undefined;
}

/** What `commit` changes in one step, if the upload is still at the expected offset. */
export interface UploadCommit {
  /** The run of bytes just stored, from `expectedOffset` on. */
  readonly part?: UploadPart | undefined;
  /** The total size, declared late (creation-defer-length). */
  readonly length?: number | undefined;
  readonly expiresAt: Date;
  /** The append lease this commit ends, if the committer holds one. */
  readonly holder?: string | undefined;
}

/**
 * Persistence for resumable uploads, shared by every service instance so any
 * of them can continue any upload.
 *
 * Contract (checked by `uploadStoreConformance` in `switchyard/testing`):
 * - `insert` stores a new record (a repeated id throws `already_exists`).
 * - `get` returns the record only within its own workspace, else `undefined`.
 * - `commit` is a compare-and-set on the offset: it applies the change and
 *   returns the new record only when the upload exists and is still at
 *   `expectedOffset` and unfinished, and a `length` given agrees with the
 *   upload's (or it has none yet); otherwise it changes nothing and returns
 *   `undefined`. Two appends racing at one offset: exactly one wins. It ends
 *   the append lease only if `holder` holds it.
 * - `acquireAppend` takes the upload's append lease for `holder`: true when
 *   no lease taken at or after `staleBefore` is held by another holder and
 *   the upload is unfinished. `renewAppend` moves the holder's lease time on;
 *   `releaseAppend` (and a `commit` naming the holder) drops it.
 * - `claimFinish` lets one caller at a time finish a complete upload: true
 *   when no claim younger than `staleBefore` is held and no asset is recorded.
 *   The claim's time is its holder's token: `renewFinish` moves a claim taken
 *   (or last renewed) at `claimedAt` to `now`, true when it was still that
 *   claim, so a long finish keeps it from going stale.
 * - `finish` records the asset and clears the parts list; `releaseFinish`
 *   drops a claim whose finish failed and may be retried.
 * - `delete` removes the record; true when there was one. With
 *   `expiredBefore`, only a record whose `expiresAt` is before it.
 * - `referencesPart` tells whether any upload (any workspace) lists a part
 *   with this blob key (garbage collection, for parts a concatenation took
 *   over from partial uploads that are gone).
 * - `expired` lists records (any workspace) whose `expiresAt` is before `now`.
 * - `countOpen` counts unfinished uploads (any workspace) not expired at `now`.
 * - `has` tells whether an upload id exists in any workspace (garbage collection).
 */
export interface UploadStore {
  insert(record: UploadRecord): Promise<void>;
  get(workspace: string, id: string): Promise<UploadRecord | undefined>;
  commit(workspace: string, id: string, expectedOffset: number, change: UploadCommit): Promise<UploadRecord | undefined>;
  acquireAppend(workspace: string, id: string, holder: string, now: Date, staleBefore: Date): Promise<boolean>;
  renewAppend(workspace: string, id: string, holder: string, now: Date): Promise<void>;
  releaseAppend(workspace: string, id: string, holder: string): Promise<void>;
  claimFinish(workspace: string, id: string, now: Date, staleBefore: Date): Promise<boolean>;
  renewFinish(workspace: string, id: string, claimedAt: Date, now: Date): Promise<boolean>;
  releaseFinish(workspace: string, id: string): Promise<void>;
  finish(workspace: string, id: string, assetId: string, expiresAt: Date): Promise<void>;
  delete(workspace: string, id: string, expiredBefore?: Date): Promise<boolean>;
  referencesPart(key: string): Promise<boolean>;
  expired(now: Date, limit: number): Promise<UploadRecord[]>;
  has(id: string): Promise<boolean>;
  countOpen(now: Date): Promise<number>;
}
