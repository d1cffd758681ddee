import { requireScope, type Principal } from '../auth/principal.js';
import { SwitchyardError, toSwitchyardError } from '../errors.js';
import { assertId } from '../ids.js';
import type { AssetContent, AssetRecord, AssetStore } from '../ports/asset-store.js';
import { assetNotFound, versionNotFound } from './asset-errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { KeepVersion } from '../ports/asset-retention.js';
import { versionsKept, type WorkspacePolicy } from './workspace-policy.js';
import { contentDeps, type AssetServiceDeps } from './asset-service.js';
import { discardReplacedBlob, discardUnreferencedBlob } from './blob-cleanup.js';
import { blobKeyFor } from './blob-naming.js';
import { storeContent } from './store-content.js';
import { toAsset } from './to-asset.js';
import type { Asset, ReplaceInput } from './types.js';
import { policyInForce } from './policy-operations.js';
import { validateVisibility } from './visibility.js';
import { lateField } from './late-field.js';
import { cleanName } from './asset-name.js';
import type { SwapAttributes } from '../ports/asset-store.js';
import type { ChangeAuthor } from '../ports/asset-change-log.js';

/** Compare-and-set attempts before giving up with `aborted`; each lost attempt means another replace won. */
export const MAX_SWAP_ATTEMPTS = 100;

/**
 * Replaces the file behind an asset: the new bytes go to a new blob first,
 * then the record is switched to it with a version check. The file this very
 * switch displaced is kept as a version when the policy keeps versions (the
 * versions past `keepVersions` are dropped in the same write, their blobs
 * deleted after it), else its blob is deleted. So concurrent replaces each
 * handle exactly the blob they displaced, and no record or version ever
 * points at a missing blob.
 */
export async function replaceAsset(deps: AssetServiceDeps, principal: Principal, id: string, input: ReplaceInput): Promise<Asset> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const { workspace } = principal;
  const visibilityOf = lateField(input.visibility, validateVisibility);
  // A new upload without a file name keeps the asset's name.
  const name = cleanName(input.filename) || undefined;
  // Fail before reading a possibly large body.
  const [current, policy] = await Promise.all([deps.assetStore.get(workspace, assetId), policyInForce(deps, workspace)]);
  if (!current) throw assetNotFound(assetId);

  const blobId = deps.ids.next('blob');
  const blobKey = blobKeyFor(workspace, assetId, blobId);
  const stored = await storeContent(contentDeps(deps), blobKey, input.body, policy);
  const content: AssetContent = { blobId, blobKey, ...stored, uploadedAt: new Date(deps.clock.now().getTime()) };

  let swapped: Swapped;
  try {
    const author = { actor: principal.subject, time: content.uploadedAt };
    const attributes = { visibility: visibilityOf(), name, keepVersion: keepVersionOf(deps, policy) };
    swapped = await swapIn(deps.assetStore, workspace, assetId, content, attributes, author);
  } catch (error) {
    await discardUnreferencedBlob(deps.assetStore, deps.blobStore, blobKey);
    throw toSwitchyardError(error);
  }
  await discardDisplaced(deps.blobStore, swapped);
  return toAsset(swapped.record, deps.cdnUrl);
}

/** What a swap that stood wrote, and the blobs it left to nobody. */
export interface Swapped {
  readonly record: AssetRecord;
  /** The blob displaced, when no version keeps it. */
  readonly replacedKey: string | undefined;
  readonly dropped: readonly string[];
}

/** The version a replace keeps of the file it displaces, when the policy keeps any. */
export function keepVersionOf(deps: Pick<AssetServiceDeps, 'ids'>, policy: WorkspacePolicy): KeepVersion | undefined {
  const keep = versionsKept(policy);
  return keep === 0 ? undefined : { versionId: deps.ids.next('version'), keep };
}

/** Deletes what a swap left to nobody; a failure only leaves orphans for garbage collection. */
export async function discardDisplaced(blobStore: BlobStore, swapped: Swapped): Promise<void> {
  if (swapped.replacedKey !== undefined) await discardReplacedBlob(blobStore, swapped.replacedKey);
  for (const key of swapped.dropped) await discardReplacedBlob(blobStore, key);
}

/**
 * Swaps `content` in with a compare-and-set on the version read just before,
 * again while other writers win. A restore whose version is gone meanwhile
 * (another restore took it) is `not_found`.
 */
export async function swapIn(
  store: AssetStore,
  workspace: string,
  id: string,
  content: AssetContent,
  attributes: SwapAttributes,
  author: ChangeAuthor,
): Promise<Swapped> {
  for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
    const current = await store.get(workspace, id);
    if (!current) throw assetNotFound(id);
    const written = await store.swap(workspace, id, current.version, content, attributes, author);
    // Each version has exactly one blob, so the one displaced is the one read with that version.
    if (written)
      return {
        record: written.record,
        replacedKey: attributes.keepVersion ? undefined : current.blobKey,
        dropped: (written.droppedVersions ?? []).map((version) => version.blobKey),
      };
    const { restoreVersion } = attributes;
    if (restoreVersion !== undefined && !(await store.getVersion(workspace, id, restoreVersion))) throw versionNotFound(restoreVersion);
  }
  throw new SwitchyardError('aborted', `too many concurrent replaces of asset ${id}; try again`, [
    { field: 'id', reason: 'concurrent modification' },
  ]);
}
