import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument, isSwitchyardError } from '../errors.js';
import { assertId } from '../ids.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { assetNotFound } from './asset-errors.js';
import { discardReplacedBlob } from './blob-cleanup.js';
import type { BatchDeleteResult } from './types.js';

export const MAX_BATCH_DELETE = 1000;

interface Stores {
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
}

/**
 * Deletes an asset. The record goes first, in one write: from then on its id
 * and every url it had are `not_found` (a url resolves through the record).
 * The bytes go next; if that fails they are an orphan for `switchyard gc`.
 */
export async function deleteAsset(stores: Stores, principal: Principal, id: string): Promise<void> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const removed = await stores.assetStore.delete(principal.workspace, assetId);
  if (!removed) throw assetNotFound(assetId);
  await discardReplacedBlob(stores.blobStore, removed.blobKey);
}

/** Deletes each of 1-1000 ids and says what became of each, in the order asked. */
export async function batchDeleteAssets(stores: Stores, principal: Principal, ids: readonly string[]): Promise<BatchDeleteResult[]> {
  requireScope(principal, 'assets:write');
  if (ids.length === 0 || ids.length > MAX_BATCH_DELETE) throw invalidArgument('ids', `must list 1 to ${MAX_BATCH_DELETE} asset ids`);
  const results: BatchDeleteResult[] = [];
  for (const id of ids) {
    try {
      await deleteAsset(stores, principal, id);
      results.push({ id, code: 'ok' });
    } catch (error) {
      // Per-id answers for what the caller got wrong; a store failure fails the whole call.
      if (isSwitchyardError(error) && (error.code === 'not_found' || error.code === 'invalid_argument'))
        results.push({ id, code: error.code });
      else throw error;
    }
  }
  return results;
}
