// Shared by the resumable upload tests (not part of the library's API).
import { createHash } from 'node:crypto';
import { isSwitchyardError, type SwitchyardError } from '../errors.js';
import { MemoryUploadStore } from '../memory/memory-upload-store.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { createSequentialIds } from '../testing/sequential-ids.js';
import { setup } from '../assets/test-support.js';
import { createResumableUploads } from './resumable-uploads.js';

export const DAY = 24 * 60 * 60 * 1000;

/** Resumable uploads over `setup`'s services and a memory upload store; `another()` is a second instance over the same stores (another process). */
export function uploadsSetup(
  options: { maxUploadBytes?: number; blobStore?: BlobStore; assetStore?: AssetStore; finishClaimMs?: number } = {},
) {
  const base = setup(options);
  const uploadStore = new MemoryUploadStore();
  const ids = createSequentialIds();
  const another = () =>
    createResumableUploads({
      uploadStore,
      assetStore: base.assetStore,
      blobStore: base.blobStore,
      assets: base.service,
      clock: base.clock,
      ids,
      maxUploadBytes: options.maxUploadBytes ?? 10 * 1024 * 1024,
      expiryMs: DAY,
      finishClaimMs: options.finishClaimMs,
    });
  return { ...base, uploadStore, uploads: another(), another };
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
