import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { invalidArgument } from '../errors.js';
import { assertId, isId } from '../ids.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { assetNotFound } from './asset-errors.js';
import type { DeleteMode } from '../ports/asset-retention.js';
import { discardPurged } from './asset-trash.js';
import { policyInForce } from './policy-operations.js';
import { changeAuthor } from './change-author.js';
import type { BatchDeleteResult, DeleteOptions } from './types.js';

export const MAX_BATCH_DELETE = 1000;

interface Stores {
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  readonly clock: Clock;
  readonly maxUploadBytes: number;
}

/**
 * Deletes an asset. The record goes first, in one write with its change:
 * from then on its id and every url it had are `not_found` (a url resolves
 * through the live record). While the policy keeps a trash the record moves
 * there, bytes and versions kept; else (or with `purge`) the bytes of its
 * file and versions go next, and if that fails they are orphans for
 * `switchyard gc`.
 */
export async function deleteAsset(stores: Stores, principal: Principal, id: string, options: DeleteOptions = {}): Promise<void> {
  requireScope(principal, options.purge ? 'workspace:admin' : 'assets:write');
  const assetId = assertId('asset', id);
  const mode = options.purge ? { purge: true } : await modeOf(stores, principal.workspace);
  const removed = await stores.assetStore.delete(principal.workspace, assetId, changeAuthor(principal, stores.clock), mode);
  if (!removed) throw assetNotFound(assetId);
  if (!mode.trash) await discardPurged(stores.blobStore, removed);
}

/** To the trash while the policy keeps one (`retentionDays` above 0). */
async function modeOf(stores: Stores, workspace: string): Promise<DeleteMode> {
  const policy = await policyInForce(stores, workspace);
  return policy.retentionDays > 0 ? { trash: true } : {};
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
  const mode = await modeOf(stores, principal.workspace);
  const removed = await stores.assetStore.deleteMany(principal.workspace, valid, changeAuthor(principal, stores.clock), mode);
  const unreported = new Set(removed.map((write) => write.record.id));
  const results = ids.map((id): BatchDeleteResult => {
    if (!wellFormed(id)) return { id, code: 'invalid_argument' };
    // An id listed twice is deleted once: the first answer is ok, the second not_found, as if asked one by one.
    return { id, code: unreported.delete(id) ? 'ok' : 'not_found' };
  });
  if (!mode.trash) for (const write of removed) await discardPurged(stores.blobStore, write);
  return results;
}

function wellFormed(id: unknown): id is string {
  return typeof id === 'string' && isId('asset', id);
}
