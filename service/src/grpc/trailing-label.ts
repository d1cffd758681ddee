import { AsyncLocalStorage } from 'node:async_hooks';
import { validateLabel } from '../../../lib/src/assets/label.js';
import type { AssetStore } from '../../../lib/src/ports/asset-store.js';

/**
 * Bridge for UploadAsset's `trailing_label` (a label that arrives after the
 * bytes, e.g. from an HTML form whose label field follows its file field).
 * The library takes an upload's label before reading the body, so the label
 * is applied where the record is written: the asset store handed to the
 * library takes the running call's trailing label in `insert`, validated by
 * the library's own rule. Interim, until the library's UploadInput accepts a
 * label resolved after the body; then this file goes.
 */
const trailingLabels = new AsyncLocalStorage<() => string | undefined>();

/** Runs an upload whose record takes the label `read()` returns once the body has ended (if any). */
export function withTrailingLabel<T>(read: () => string | undefined, upload: () => Promise<T>): Promise<T> {
  return trailingLabels.run(read, upload);
}

export function acceptTrailingLabels(store: AssetStore): AssetStore {
  return {
    insert: async (record) => {
      const label = trailingLabels.getStore()?.();
      return store.insert(label === undefined ? record : { ...record, label: validateLabel(label) });
    },
    get: (workspace, id) => store.get(workspace, id),
    getByBlobId: (blobId) => store.getByBlobId(blobId),
    swap: (workspace, id, expectedVersion, content) => store.swap(workspace, id, expectedVersion, content),
    hasBlobKey: (blobKey) => store.hasBlobKey(blobKey),
  };
}
