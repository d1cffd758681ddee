import test from 'ava';
import { assetStoreConformance, blobStoreConformance, routeStoreConformance } from '../testing/index.js';
import { MemoryAssetStore, MemoryBlobStore, MemoryRouteStore } from './index.js';

routeStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryRouteStore() }) });
assetStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryAssetStore() }) });
blobStoreConformance(test, { name: 'memory', create: async () => ({ store: new MemoryBlobStore() }) });
