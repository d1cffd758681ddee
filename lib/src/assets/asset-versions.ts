import { requireScope, type Principal } from '../auth/principal.js';
import { assertId } from '../ids.js';
import type { AssetVersionRecord } from '../ports/asset-retention.js';
import { assetNotFound, versionNotFound } from './asset-errors.js';
import type { AssetServiceDeps } from './asset-service.js';
import { changeAuthor } from './change-author.js';
import { policyInForce } from './policy-operations.js';
import { discardDisplaced, keepVersionOf, swapIn } from './replace-asset.js';
import { toAsset } from './to-asset.js';
import type { Asset, AssetVersion, VersionFile } from './types.js';

// An asset's versions: the files replaces displaced, listed, read and made current again (issue 43).

type Deps = Pick<AssetServiceDeps, 'assetStore' | 'blobStore' | 'clock' | 'ids' | 'cdnUrl' | 'maxUploadBytes'>;

export async function listVersions(deps: Deps, principal: Principal, id: string): Promise<AssetVersion[]> {
  requireScope(principal, 'assets:read');
  const assetId = assertId('asset', id);
  const [asset, versions] = await Promise.all([
    deps.assetStore.get(principal.workspace, assetId),
    deps.assetStore.listVersions(principal.workspace, assetId),
  ]);
  if (!asset) throw assetNotFound(assetId);
  return versions.map(toVersion);
}

/** A version's bytes, read through the API only: a replace ended its public url. */
export async function openVersion(deps: Deps, principal: Principal, id: string, versionId: string): Promise<VersionFile> {
  requireScope(principal, 'assets:read');
  const version = await findVersion(deps, principal, id, versionId);
  const body = version.size === 0 ? undefined : await deps.blobStore.get(version.blobKey);
  // A version whose blob is missing is a store fault, never an empty 200.
  if (version.size > 0 && body === undefined) throw versionNotFound(version.id);
  return Object.freeze({ version: toVersion(version), body });
}

/**
 * Makes a version current again, as a replace: one swap takes the version out
 * of the asset's versions and keeps the current file as a version in its
 * place (when the policy keeps any); the change says it was a restore. The
 * restored file keeps its blob, so its bytes are not copied.
 */
export async function restoreVersion(deps: Deps, principal: Principal, id: string, versionId: string): Promise<Asset> {
  requireScope(principal, 'assets:write');
  const version = await findVersion(deps, principal, id, versionId);
  const policy = await policyInForce(deps, principal.workspace);
  const { id: _id, workspace: _w, assetId: _a, name, actor: _actor, replacedAt: _at, ...content } = version;
  const swapped = await swapIn(
    deps.assetStore,
    principal.workspace,
    version.assetId,
    content,
    { name, restoreVersion: version.id, keepVersion: keepVersionOf(deps, policy) },
    changeAuthor(principal, deps.clock),
  );
  await discardDisplaced(deps.blobStore, swapped);
  return toAsset(swapped.record, deps.cdnUrl);
}

async function findVersion(deps: Deps, principal: Principal, id: string, versionId: string): Promise<AssetVersionRecord> {
  const assetId = assertId('asset', id);
  const wanted = assertId('version', versionId, 'versionId');
  const version = await deps.assetStore.getVersion(principal.workspace, assetId, wanted);
  if (version) return version;
  if (!(await deps.assetStore.get(principal.workspace, assetId))) throw assetNotFound(assetId);
  throw versionNotFound(wanted);
}

export function toVersion(version: AssetVersionRecord): AssetVersion {
  return Object.freeze({
    id: version.id,
    type: version.type,
    size: version.size,
    sha256: version.sha256,
    name: version.name,
    uploadedAt: new Date(version.uploadedAt),
    actor: version.actor,
    replacedAt: new Date(version.replacedAt),
    width: version.width,
    height: version.height,
    durationMs: version.durationMs,
    pages: version.pages,
    placeholder: version.placeholder,
  });
}
