import { requireScope, type Principal } from '../auth/principal.js';
import { SwitchyardError, toSwitchyardError } from '../errors.js';
import { assertId } from '../ids.js';
import type { AssetContent, AssetRecord, AssetStore } from '../ports/asset-store.js';
import { assetNotFound } from './asset-errors.js';
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
 * then the record is switched to it with a version check, then the blob that
 * this very switch replaced is deleted. So concurrent replaces each delete
 * exactly the blob they displaced, and no record ever points at a missing blob.
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

  let swapped: { record: AssetRecord; replacedKey: string };
  try {
    const author = { actor: principal.subject, time: content.uploadedAt };
    swapped = await swapIn(deps.assetStore, workspace, assetId, content, { visibility: visibilityOf(), name }, author);
  } catch (error) {
    await discardUnreferencedBlob(deps.assetStore, deps.blobStore, blobKey);
    throw toSwitchyardError(error);
  }
  await discardReplacedBlob(deps.blobStore, swapped.replacedKey);
  return toAsset(swapped.record, deps.cdnUrl);
}

async function swapIn(
  store: AssetStore,
  workspace: string,
  id: string,
  content: AssetContent,
  attributes: SwapAttributes,
  author: ChangeAuthor,
): Promise<{ record: AssetRecord; replacedKey: string }> {
  for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
    const current = await store.get(workspace, id);
    if (!current) throw assetNotFound(id);
    const written = await store.swap(workspace, id, current.version, content, attributes, author);
    // Each version has exactly one blob, so the one displaced is the one read with that version.
    if (written) return { record: written.record, replacedKey: current.blobKey };
  }
  throw new SwitchyardError('aborted', `too many concurrent replaces of asset ${id}; try again`, [
    { field: 'id', reason: 'concurrent modification' },
  ]);
}
