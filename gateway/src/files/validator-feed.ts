import type { AssetChangeSource } from '@switchyard/core';
import type { ValidatorCache } from './validator-cache.js';

/**
 * Keeps `cache` exact from the asset change feed of the service in this
 * process: each committed change drops the validators of the assets it names
 * at once, whichever way it was made (REST, Connect, tus, the gRPC port, a
 * batch delete); a change another instance made, heard without its asset ids,
 * drops them all. Returns the function that stops following.
 */
export function followAssetChanges(source: AssetChangeSource, cache: ValidatorCache): () => void {
  return source.subscribe((notice) => {
    if (notice.assetIds === undefined) return cache.clear();
    for (const id of notice.assetIds) cache.forget(id);
  });
}
