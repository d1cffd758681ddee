import { systemClock, type Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { sourceOfVariantKey } from '../assets/transform/variants.js';
import type { UploadStore } from '../ports/upload-store.js';
import { sweepExpiredUploads, uploadOfPartKey } from '../uploads/sweep-uploads.js';
import { expireRetained } from './expire-retained.js';

/** Long enough for any upload to finish and have its record written. */
export const DEFAULT_GC_GRACE_MS = 60 * 60 * 1000;

export interface CollectGarbageOptions {
  readonly blobStore: BlobStore;
  readonly assetStore: AssetStore;
  /** Resumable uploads: expired ones are removed with their parts, and the parts of live ones kept. */
  readonly uploadStore?: UploadStore | undefined;
  readonly clock?: Clock | undefined;
  /** Blobs modified more recently than this are kept, referenced or not (default one hour). */
  readonly graceMs?: number | undefined;
  /** Report what would go, delete nothing. */
  readonly dryRun?: boolean | undefined;
}

export interface GarbageReport {
  /** Blobs looked at. */
  readonly scanned: number;
  /** Keys removed (or, in a dry run, that would have been). */
  readonly deleted: string[];
  /** Expired resumable uploads removed (in a dry run: that would be), with their stored parts. */
  readonly expiredUploads: string[];
  /** Versions past their workspace's `keepVersions` or `retentionDays`, purged (in a dry run: that would be), by id. */
  readonly expiredVersions: string[];
  /** Trashed assets past their workspace's `retentionDays`, purged (in a dry run: that would be), by id. */
  readonly expiredTrash: string[];
  /** Partial writes a crash left outside any key (temp files, multipart uploads), removed or, in a dry run, found. */
  readonly abandoned: string[];
  /** What could not be collected, and why (e.g. a store that cannot list its partial writes). */
  readonly warnings: string[];
}

/**
 * Purges the versions and trashed assets their workspace's retention no
 * longer keeps (expire-retained.ts), then removes blobs that no asset record, version or trash entry points at: those left by a crash between
 * writing a blob and switching the record to it, or by a replace that lost its
 * race. Then removes what puts cut short by a crash left outside any key (the
 * disk store's temp files, S3's unfinished multipart uploads). A blob younger than the grace period may belong to an upload whose
 * record is about to be written, so it is never touched, whatever the records say.
 */
export async function collectGarbage(options: CollectGarbageOptions): Promise<GarbageReport> {
  const graceMs = options.graceMs ?? DEFAULT_GC_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new SwitchyardError('invalid_argument', 'graceMs must be a non-negative number', [
      { field: 'graceMs', reason: 'not a non-negative number' },
    ]);
  }
  const now = (options.clock ?? systemClock).now();
  const cutoff = now.getTime() - graceMs;
  const dryRun = options.dryRun === true;
  const { uploadStore } = options;
  const expiredUploads = uploadStore ? await sweepExpiredUploads(uploadStore, options.blobStore, now, dryRun) : [];
  // Retention first: the blobs of what it purges are gone before the scan (or, if a delete failed, orphans it finds).
  const expired = await expireRetained(options.assetStore, options.blobStore, options.clock ?? systemClock, dryRun);
  let scanned = 0;
  const deleted: string[] = [];
  for await (const blob of options.blobStore.list()) {
    scanned++;
    if (blob.modifiedAt.getTime() > cutoff) continue;
    if (await isReferenced(options.assetStore, uploadStore, blob.key)) continue;
    if (!options.dryRun) await options.blobStore.delete(blob.key);
    deleted.push(blob.key);
  }
  const sweep = (await options.blobStore.sweepAbandonedWrites?.(new Date(cutoff), { dryRun })) ?? { removed: [] };
  return {
    scanned,
    deleted,
    expiredUploads,
    expiredVersions: expired.versions,
    expiredTrash: expired.trash,
    abandoned: sweep.removed,
    warnings: sweep.unsupported === undefined ? [] : [sweep.unsupported],
  };
}

/** A blob is in use when an asset's current file is it or its source (variants), or a live resumable upload holds it (its own, or one a concatenation took over). */
async function isReferenced(assetStore: AssetStore, uploadStore: UploadStore | undefined, key: string): Promise<boolean> {
  const uploadId = uploadOfPartKey(key);
  // Without the upload store nothing is known about uploads: their parts are kept.
  if (uploadId !== undefined)
    return uploadStore === undefined || (await uploadStore.has(uploadId)) || (await uploadStore.referencesPart(key));
  return assetStore.hasBlobKey(sourceOfVariantKey(key) ?? key);
}
