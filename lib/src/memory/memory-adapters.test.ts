import test from 'ava';
import {
  assetStoreConformance,
  blobStoreConformance,
  keyStoreConformance,
  routeStoreConformance,
  uploadStoreConformance,
  webhookStoreConformance,
} from '../testing/index.js';
import { MemoryAssetStore, MemoryBlobStore, MemoryKeyStore, MemoryRouteStore, MemoryUploadStore, MemoryWebhookStore } from './index.js';

routeStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryRouteStore() }) });
assetStoreConformance(test, {
  name: 'memory',
  create: async () => ({ store: new MemoryAssetStore() }),
  createWithHistory: async (history) => ({ store: new MemoryAssetStore({ history }) }),
});
blobStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryBlobStore() }) });
uploadStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryUploadStore() }) });
keyStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryKeyStore() }) });
webhookStoreConformance(test, {
  name: 'memory',
  create: async () => {
    const webhooks = new MemoryWebhookStore();
    return { store: { webhooks, assets: new MemoryAssetStore({ outbox: webhooks }), routes: new MemoryRouteStore({ outbox: webhooks }) } };
  },
});
