import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { assertId, isId } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import type { TrashedAssetRecord } from '../ports/asset-retention.js';
import type { BlobStore } from '../ports/blob-store.js';
import { trashedAssetNotFound } from './asset-errors.js';
import type { AssetServiceDeps } from './asset-service.js';
import { discardReplacedBlob } from './blob-cleanup.js';
import { changeAuthor } from './change-author.js';
import { policyInForce } from './policy-operations.js';
import { toAsset } from './to-asset.js';
import type { Asset, TrashListInput, TrashPage } from './types.js';
import { retentionMs } from './workspace-policy.js';

// A workspace's trash: deleted assets kept for `retentionDays`, listed, restored or purged (issue 43).

type Deps = Pick<AssetServiceDeps, 'assetStore' | 'blobStore' | 'clock' | 'cdnUrl' | 'maxUploadBytes'>;

/** A page of the trash by descending id; `purgeAt` follows the policy as it is now. */
export async function listTrash(deps: Deps, principal: Principal, input: TrashListInput): Promise<TrashPage> {
  requireScope(principal, 'assets:read');
  const limit = pageSizeOf(input.pageSize);
  const binding = bindingOf(principal.workspace, 'trash');
  const before = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  const [records, policy] = await Promise.all([
    deps.assetStore.listTrash(principal.workspace, { before, limit: limit + 1 }),
    policyInForce(deps, principal.workspace),
  ]);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  const keptMs = retentionMs(policy);
  return Object.freeze({
    assets: Object.freeze(page.map((record) => toTrashed(record, deps.cdnUrl, keptMs))),
    nextPageToken: records.length > limit && last ? encodePageToken([last.id], binding) : '',
  });
}

/** Back with its id, name, label, visibility and versions; the store raises its link epoch, so old signed links stay dead. */
export async function restoreFromTrash(deps: Deps, principal: Principal, id: string): Promise<Asset> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const written = await deps.assetStore.restoreFromTrash(principal.workspace, assetId, changeAuthor(principal, deps.clock));
  if (!written) throw trashedAssetNotFound(assetId);
  return toAsset(written.record, deps.cdnUrl);
}

/** Gone for good: the row and its versions in one write (with its change), then their blobs. */
export async function purgeFromTrash(deps: Deps, principal: Principal, id: string): Promise<void> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const written = await deps.assetStore.purgeFromTrash(principal.workspace, assetId, changeAuthor(principal, deps.clock));
  if (!written) throw trashedAssetNotFound(assetId);
  await discardPurged(deps.blobStore, written);
}

/** Deletes the blobs of a record and its versions that a write removed; a failure leaves orphans for garbage collection. */
export async function discardPurged(blobStore: BlobStore, write: AssetWrite): Promise<void> {
  await discardReplacedBlob(blobStore, write.record.blobKey);
  for (const version of write.droppedVersions ?? []) await discardReplacedBlob(blobStore, version.blobKey);
}

function toTrashed(record: TrashedAssetRecord, cdnUrl: string, keptMs: number) {
  return Object.freeze({
    ...toAsset(record, cdnUrl),
    deletedAt: new Date(record.deletedAt),
    deletedBy: record.deletedBy,
    purgeAt: new Date(record.deletedAt.getTime() + keptMs),
  });
}

function cursorOf(token: string, binding: string): string {
  const [lastId] = decodePageToken(token, binding, 1);
  if (lastId === undefined || !isId('asset', lastId)) throw invalidArgument('pageToken', 'is not a page token of this listing');
  return lastId;
}
