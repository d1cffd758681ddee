import { MemoryAssetStore } from './memory-asset-store.js';
import { MemoryBlobStore } from './memory-blob-store.js';
import { MemoryRouteStore } from './memory-route-store.js';
import { MemoryUploadStore } from './memory-upload-store.js';
import { MemoryKeyStore } from './memory-key-store.js';
import { LoopbackChangeFeed } from './loopback-change-feed.js';
import { MemoryWebhookStore } from './memory-webhook-store.js';

export { MemoryAssetStore, MemoryBlobStore, MemoryRouteStore, MemoryUploadStore, MemoryKeyStore, LoopbackChangeFeed, MemoryWebhookStore };
export type { MemoryOutbox } from './memory-outbox.js';

/** One fresh set of in-memory stores, ready to spread into `createSwitchyard`. */
export function memoryAdapters(): {
  routeStore: MemoryRouteStore;
  assetStore: MemoryAssetStore;
  blobStore: MemoryBlobStore;
  uploadStore: MemoryUploadStore;
  keyStore: MemoryKeyStore;
  webhookStore: MemoryWebhookStore;
} {
  // The stores write their changes' webhook deliveries in the same step as the change.
  const webhookStore = new MemoryWebhookStore();
  return {
    routeStore: new MemoryRouteStore({ outbox: webhookStore }),
    assetStore: new MemoryAssetStore({ outbox: webhookStore }),
    webhookStore,
    blobStore: new MemoryBlobStore(),
    uploadStore: new MemoryUploadStore(),
    keyStore: new MemoryKeyStore(),
  };
}
