import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { invalidArgument } from '../errors.js';
import { assertId, isId } from '../ids.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { assetNotFound } from './asset-errors.js';
import { discardReplacedBlob } from './blob-cleanup.js';
import { changeAuthor } from './change-author.js';
import type { BatchDeleteResult } from './types.js';

export const MAX_BATCH_DELETE = 1000;

interface Stores {
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  readonly clock: Clock;
}

/**
 * Deletes an asset. The record goes first, in one write with its change:
 * from then on its id and every url it had are `not_found` (a url resolves
 * through the record). The bytes go next; if that fails they are an orphan
 * for `switchyard gc`.
 */
export async function deleteAsset(stores: Stores, principal: Principal, id: string): Promise<void> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const removed = await stores.assetStore.delete(principal.workspace, assetId, changeAuthor(principal, stores.clock));
  if (!removed) throw assetNotFound(assetId);
  await discardReplacedBlob(stores.blobStore, removed.record.blobKey);
}

/**
 * Deletes each of 1-1000 ids and says what became of each, in the order asked.
 * The assets found go in one write, one revision with a change for each (a
 * follower applies the batch whole), so a store failure deletes none of them.
 */
export async function batchDeleteAssets(stores: Stores, principal: Principal, ids: readonly string[]): Promise<BatchDeleteResult[]> {
  requireScope(principal, 'assets:write');
  if (ids.length === 0 || ids.length > MAX_BATCH_DELETE) throw invalidArgument('ids', `must list 1 to ${MAX_BATCH_DELETE} asset ids`);
  const valid = ids.filter(wellFormed);
  const removed = await stores.assetStore.deleteMany(principal.workspace, valid, changeAuthor(principal, stores.clock));
  const unreported = new Set(removed.map((write) => write.record.id));
  const results = ids.map((id): BatchDeleteResult => {
    if (!wellFormed(id)) return { id, code: 'invalid_argument' };
    // An id listed twice is deleted once: the first answer is ok, the second not_found, as if asked one by one.
    return { id, code: unreported.delete(id) ? 'ok' : 'not_found' };
  });
  for (const write of removed) await discardReplacedBlob(stores.blobStore, write.record.blobKey);
  return results;
}

function wellFormed(id: unknown): id is string {
  return typeof id === 'string' && isId('asset', id);
}
