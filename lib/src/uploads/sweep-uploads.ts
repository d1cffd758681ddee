import type { BlobStore } from '../ports/blob-store.js';
import type { UploadStore } from '../ports/upload-store.js';
import { discardUpload } from './finish-upload.js';
import { UPLOAD_PARTS_PREFIX } from './resumable-uploads.js';

/** Removes uploads past their expiry with their stored bytes; returns their ids (in a dry run: those that would go). */
export async function sweepExpiredUploads(uploadStore: UploadStore, blobStore: BlobStore, now: Date, dryRun: boolean): Promise<string[]> {
  const removed: string[] = [];
  const seen = new Set<string>();
  for (;;) {
    const batch = (await uploadStore.expired(now, 500)).filter((record) => !seen.has(record.id));
    if (batch.length === 0) return removed;
    for (const record of batch) {
      seen.add(record.id);
      if (dryRun || (await discardUpload(uploadStore, blobStore, record, now))) removed.push(record.id);
    }
    if (dryRun) return removed;
  }
}

/** The upload a blob key holds a part of, if it is a part's key (`_uploads/<workspace>/<upload id>/<part>`). */
export function uploadOfPartKey(key: string): string | undefined {
  const segments = key.split('/');
  return segments.length === 4 && segments[0] === UPLOAD_PARTS_PREFIX ? segments[2] : undefined;
}
