import { SwitchyardError } from '../errors.js';

/** Unknown, or in another workspace: the caller cannot tell which. */
export function assetNotFound(id: string): SwitchyardError {
  return new SwitchyardError('not_found', `asset ${id} not found`, [{ field: 'id', reason: 'no such asset in this workspace' }]);
}

/** Unknown, replaced away, or with the wrong extension. */
export function fileNotFound(): SwitchyardError {
  return new SwitchyardError('not_found', 'file not found', [{ field: 'path', reason: 'no current file at this path' }]);
}

/** Not among the asset's kept versions (never was, restored, or purged). */
export function versionNotFound(id: string): SwitchyardError {
  return new SwitchyardError('not_found', `version ${id} not found`, [{ field: 'versionId', reason: 'no such version of this asset' }]);
}

/** Not in the workspace's trash (never deleted, restored, or purged). */
export function trashedAssetNotFound(id: string): SwitchyardError {
  return new SwitchyardError('not_found', `asset ${id} not found in the trash`, [{ field: 'id', reason: 'no such asset in the trash' }]);
}
