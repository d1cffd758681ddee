// `switchyard/testing`: the port conformance suites every adapter runs, and
// small helpers for adapter tests.

export { routeStoreConformance, sampleRoute } from './route-store-conformance.js';
export { assetStoreConformance, sampleAsset, sampleContent, SMALL_ASSET_HISTORY } from './asset-store-conformance.js';
export type { AssetStoreConformanceOptions } from './asset-store-conformance.js';
export { uploadStoreConformance, sampleUpload } from './upload-store-conformance.js';
export { keyStoreConformance, sampleKey } from './key-store-conformance.js';
export { webhookStoreConformance, sampleEndpoint } from './webhook-store-conformance.js';
export type { WebhookStores } from './webhook-store-conformance.js';
export { blobStoreConformance, UNSAFE_BLOB_KEYS } from './blob-store-conformance.js';
export type { ConformanceOptions, RegisterTest, StoreHandle } from './conformance.js';
export type { Check } from './assertions.js';
export { uniqueName } from './conformance.js';
export { bytesOf, sha256Of, generatedBytes, generatedStream, failingStream } from './streams.js';
export { createManualClock } from './manual-clock.js';
export type { ManualClock } from './manual-clock.js';
export { timeSourceOf } from './fake-time.js';
export { eventually, quietPeriod } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
export type { FakeTimersClock } from './fake-time.js';
export { createSequentialIds } from './sequential-ids.js';
export { changeFeedConformance } from './change-feed-conformance.js';
export type { ChangeFeedPair } from './change-feed-conformance.js';
