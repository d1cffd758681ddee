import test from 'ava';
import {
  assetStoreConformance,
  blobStoreConformance,
  keyStoreConformance,
  routeStoreConformance,
  uploadStoreConformance,
} from '../testing/index.js';
import { MemoryAssetStore, MemoryBlobStore, MemoryKeyStore, MemoryRouteStore, MemoryUploadStore } from './index.js';

routeStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryRouteStore() }) });
assetStoreConformance(test, {
  name: 'memory',
  create: async () => ({ store: new MemoryAssetStore() }),
  createWithHistory: async (history) => ({ store: new MemoryAssetStore({ history }) }),
});
blobStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryBlobStore() }) });
uploadStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryUploadStore() }) });
keyStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryKeyStore() }) });
