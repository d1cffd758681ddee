import { MemoryAssetStore } from './memory-asset-store.js';
import { MemoryBlobStore } from './memory-blob-store.js';
import { MemoryRouteStore } from './memory-route-store.js';
import { MemoryUploadStore } from './memory-upload-store.js';
import { MemoryKeyStore } from './memory-key-store.js';
import { LoopbackChangeFeed } from './loopback-change-feed.js';

export { MemoryAssetStore, MemoryBlobStore, MemoryRouteStore, MemoryUploadStore, MemoryKeyStore, LoopbackChangeFeed };

/** One fresh set of in-memory stores, ready to spread into `createSwitchyard`. */
export function memoryAdapters(): {
  routeStore: MemoryRouteStore;
  assetStore: MemoryAssetStore;
  blobStore: MemoryBlobStore;
  uploadStore: MemoryUploadStore;
  keyStore: MemoryKeyStore;
} {
  return {
    routeStore: new MemoryRouteStore(),
    assetStore: new MemoryAssetStore(),
    blobStore: new MemoryBlobStore(),
    uploadStore: new MemoryUploadStore(),
    keyStore: new MemoryKeyStore(),
  };
}
