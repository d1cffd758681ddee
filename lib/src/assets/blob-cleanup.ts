import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';

/**
 * Deletes a blob that a failed record write may have left unreferenced. When
 * the write's outcome is unknown (a lost connection after commit), a record
 * may point at the blob after all: then it stays, and at worst becomes an
 * orphan for garbage collection, never a dangling record.
 */
export async function discardUnreferencedBlob(assetStore: AssetStore, blobStore: BlobStore, blobKey: string): Promise<void> {
  const referenced = await assetStore.hasBlobKey(blobKey).catch(() => true);
  if (!referenced) await blobStore.delete(blobKey).catch(() => undefined);
}

/** Deletes a blob no record points at any more; a failure only leaves an orphan for garbage collection. */
export async function discardReplacedBlob(blobStore: BlobStore, blobKey: string): Promise<void> {
  await blobStore.delete(blobKey).catch(() => undefined);
}
