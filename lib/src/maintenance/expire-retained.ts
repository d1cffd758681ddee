import type { Clock } from '../clock.js';
import { discardPurged } from '../assets/asset-trash.js';
import { discardReplacedBlob } from '../assets/blob-cleanup.js';
import { effectivePolicy, retentionMs, versionsKept } from '../assets/workspace-policy.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ChangeAuthor } from '../ports/asset-change-log.js';
import type { AssetVersionRecord } from '../ports/asset-retention.js';

/** The actor the change log names for purges made by collection. */
export const GC_ACTOR = 'switchyard-gc';

/** Versions and trash looked at per store call. */
const BATCH = 500;

export interface ExpiredReport {
  /** `ver_…` ids of the versions purged (in a dry run: that would be). */
  readonly versions: string[];
  /** `as_…` ids of the trashed assets purged (in a dry run: that would be). */
  readonly trash: string[];
}

/**
 * Purges, in every workspace that keeps any, the versions past the policy's
 * `keepVersions` or older than `retentionDays`, and the trashed assets
 * deleted longer than `retentionDays` ago: each purge one logged write (rows
 * first), then its blobs. Nothing younger is touched.
 */
export async function expireRetained(assetStore: AssetStore, blobStore: BlobStore, clock: Clock, dryRun: boolean): Promise<ExpiredReport> {
  const report: ExpiredReport = { versions: [], trash: [] };
  for (const workspace of await assetStore.retainingWorkspaces()) {
    // The server's upload limit plays no part here.
    const policy = effectivePolicy(await assetStore.getPolicy(workspace), Number.MAX_SAFE_INTEGER);
    const now = clock.now();
    const cutoff = new Date(now.getTime() - retentionMs(policy));
    const author: ChangeAuthor = { actor: GC_ACTOR, time: new Date(Math.trunc(now.getTime())) };
    await expireVersions(assetStore, blobStore, workspace, { cutoff, keep: versionsKept(policy), author, dryRun }, report);
    await expireTrash(assetStore, blobStore, workspace, { cutoff, author, dryRun }, report);
  }
  return report;
}

interface Expiry {
  readonly cutoff: Date;
  readonly author: ChangeAuthor;
  readonly dryRun: boolean;
}

async function expireVersions(
  assetStore: AssetStore,
  blobStore: BlobStore,
  workspace: string,
  expiry: Expiry & { readonly keep: number },
  report: ExpiredReport,
): Promise<void> {
  // In a dry run nothing goes, so one batch is all a second look would answer again.
  for (;;) {
    const expired = await assetStore.expiredVersions(workspace, { replacedBefore: expiry.cutoff, keep: expiry.keep, limit: BATCH });
    if (expired.length === 0) return;
    const byAsset = new Map<string, AssetVersionRecord[]>();
    for (const version of expired) byAsset.set(version.assetId, [...(byAsset.get(version.assetId) ?? []), version]);
    let purged = 0;
    for (const [assetId, versions] of byAsset) {
      const ids = versions.map((version) => version.id);
      if (expiry.dryRun) {
        report.versions.push(...ids);
        continue;
      }
      const written = await assetStore.purgeVersions(workspace, assetId, ids, expiry.author);
      for (const version of written?.droppedVersions ?? []) {
        await discardReplacedBlob(blobStore, version.blobKey);
        report.versions.push(version.id);
        purged++;
      }
    }
    if (expiry.dryRun || purged === 0 || expired.length < BATCH) return;
  }
}

async function expireTrash(
  assetStore: AssetStore,
  blobStore: BlobStore,
  workspace: string,
  expiry: Expiry,
  report: ExpiredReport,
): Promise<void> {
  let before: string | undefined;
  for (;;) {
    const expired = await assetStore.listTrash(workspace, { before, deletedBefore: expiry.cutoff, limit: BATCH });
    for (const record of expired) {
      if (expiry.dryRun) {
        report.trash.push(record.id);
        continue;
      }
      const written = await assetStore.purgeFromTrash(workspace, record.id, expiry.author);
      // Restored or purged meanwhile: nothing of it is ours to remove.
      if (!written) continue;
      await discardPurged(blobStore, written);
      report.trash.push(record.id);
    }
    if (expired.length < BATCH) return;
    before = expired.at(-1)!.id;
  }
}
