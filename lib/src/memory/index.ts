import { MemoryAssetStore } from './memory-asset-store.js';
import { MemoryBlobStore } from './memory-blob-store.js';
import { MemoryRouteStore } from './memory-route-store.js';

export { MemoryAssetStore, MemoryBlobStore, MemoryRouteStore };

/** One fresh set of in-memory stores, ready to spread into `createSwitchyard`. */
export function memoryAdapters(): { routeStore: MemoryRouteStore; assetStore: MemoryAssetStore; blobStore: MemoryBlobStore } {
  return { routeStore: new MemoryRouteStore(), assetStore: new MemoryAssetStore(), blobStore: new MemoryBlobStore() };
}
