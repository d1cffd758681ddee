// Shared by the resumable upload tests (not part of the library's API).
import { createClock } from '@sinonjs/fake-timers';
import { createHash } from 'node:crypto';
import type { TimeSource } from '../clock.js';
import { isSwitchyardError, type SwitchyardError } from '../errors.js';
import { MemoryUploadStore } from '../memory/memory-upload-store.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { timeSourceOf } from '../testing/fake-time.js';
import { createSequentialIds } from '../testing/sequential-ids.js';
import { setup } from '../assets/test-support.js';
import { createResumableUploads } from './resumable-uploads.js';

export const DAY = 24 * 60 * 60 * 1000;

/**
 * Resumable uploads over `setup`'s services and a memory upload store, on fake time (`fake`, a fake-timers clock
 * the test moves; `time`, the same as the uploads read it); `another()` is a second instance over the same stores
 * (another process).
 */
export function uploadsSetup(
  options: { maxUploadBytes?: number; blobStore?: BlobStore; assetStore?: AssetStore; finishClaimMs?: number; time?: TimeSource } = {},
) {
  // The asset service's own manual clock is left out: the uploads run on `fake`.
  const { clock: assetClock, ...base } = setup(options);
  const fake = createClock(assetClock.now().getTime());
  const time = options.time ?? timeSourceOf(fake);
  const uploadStore = new MemoryUploadStore();
  const ids = createSequentialIds();
  const another = () =>
    createResumableUploads({
      uploadStore,
      assetStore: base.assetStore,
      blobStore: base.blobStore,
      assets: base.service,
      time,
      ids,
      maxUploadBytes: options.maxUploadBytes ?? 10 * 1024 * 1024,
      expiryMs: DAY,
      finishClaimMs: options.finishClaimMs,
    });
  return { ...base, fake, time, uploadStore, uploads: another(), another };
}

/** Whether `promise` has settled yet, read at any later point. */
export function settlement(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** Moves fake time on `stepMs` at a time until `promise` settles: for waits that are incidental to what a test checks. */
export async function settledOnFakeTime<T>(fake: { tickAsync(ms: number): Promise<number> }, promise: Promise<T>, stepMs = 50): Promise<T> {
  const state = settlement(promise);
  while (!state.settled) await fake.tickAsync(stepMs);
  return promise;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A body that yields `bytes` and then fails as a dropped connection does. */
export async function* cutAfter(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
  await new Promise((resolve) => setImmediate(resolve));
  throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}

export async function rejection(promise: Promise<unknown>): Promise<SwitchyardError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isSwitchyardError(error)) throw new Error(`expected a SwitchyardError, got ${String(error)}`);
  return error;
}

/** `store` without its optional `writeAt` and `link`, as the S3 store is: one blob per append, copied at the finish. */
export function withoutWriteAtOrLink(store: BlobStore): BlobStore {
  return {
    put: (key, body) => store.put(key, body),
    get: (key, range, options) => store.get(key, range, options),
    stat: (key) => store.stat(key),
    delete: (key) => store.delete(key),
    list: () => store.list(),
    check: () => store.check(),
  };
}
