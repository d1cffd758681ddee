import { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { isSwitchyardError, SwitchyardError, toSwitchyardError } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { UploadPart, UploadRecord, UploadStore } from '../ports/upload-store.js';
import type { Asset, AssetService } from '../assets/types.js';

/** Codes after which the same finish may succeed if tried again: the upload and its bytes are kept. */
const RETRYABLE = new Set(['unavailable', 'internal', 'canceled', 'deadline_exceeded', 'aborted']);

/** A part gone from the store: trying again cannot help. */
const MISSING_PART = 'parts';

/**
 * How much of a part is read at a time when finishing (a hint the disk store
 * takes). The same size as the gateway's chunks of a plain upload, so the
 * asset's blob is written in the same 1 MiB pieces as a direct upload's; with
 * the disk store's 64 KiB default the finish of a 256 MiB upload took about
 * twice the time and CPU (bench/README.md, tus-upload-throughput).
 */
const PART_READ_BYTES = 1024 * 1024;

export function isRetryable(error: SwitchyardError): boolean {
  return RETRYABLE.has(error.code) && !error.details.some((detail) => detail.field === MISSING_PART);
}

/**
 * Turns a complete upload into an asset through the plain upload (or replace)
 * path, so the sniffing, the workspace policy, the size limit, the sha256 and
 * the all-or-nothing guarantees are exactly those of a direct upload.
 */
export async function makeAsset(assets: AssetService, blobStore: BlobStore, principal: Principal, record: UploadRecord): Promise<Asset> {
  const body = Readable.from(partBytes(blobStore, record.parts), { objectMode: false });
  const { intent } = record;
  try {
    if (intent.replace !== undefined) return await assets.replace(principal, intent.replace, { body, filename: intent.filename, visibility: intent.visibility });
    return await assets.upload(principal, { body, filename: intent.filename, label: intent.label, visibility: intent.visibility });
  } catch (error) {
    body.destroy();
    throw toSwitchyardError(error);
  }
}

/** The parts' bytes in order, one part open at a time. */
async function* partBytes(blobStore: BlobStore, parts: readonly UploadPart[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    const stream = await blobStore.get(part.key, undefined, { chunkBytes: PART_READ_BYTES });
    // A part lost from the store (a crash mid-way, an operator): the upload cannot be finished, and must not pretend to.
    if (stream === undefined) throw partLost(`a stored part of the upload is missing (${part.key})`);
    let size = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        yield chunk;
      }
    } catch (error) {
      // The store failed mid-read (a socket timeout, EIO): a passing failure, which must not read as a broken body.
      throw isSwitchyardError(error) ? error : new SwitchyardError('unavailable', 'reading a stored part of the upload failed; try again', [], { cause: error });
    }
    if (size !== part.size) throw partLost(`a stored part of the upload has ${size} bytes instead of ${part.size} (${part.key})`);
  }
}

function partLost(message: string): SwitchyardError {
  return new SwitchyardError('internal', message, [{ field: MISSING_PART, reason: 'the upload lost stored bytes and cannot be finished' }]);
}

export async function deleteParts(blobStore: BlobStore, parts: readonly UploadPart[]): Promise<void> {
  // Best effort: what stays behind is found by gc, which removes parts of uploads that no longer exist.
  await Promise.all(parts.map((part) => blobStore.delete(part.key).catch(() => undefined)));
}

/** Removes an upload and its stored bytes; with `expiredBefore`, only if it is still expired then (a commit may have renewed it). */
export async function discardUpload(uploadStore: UploadStore, blobStore: BlobStore, record: UploadRecord, expiredBefore?: Date): Promise<boolean> {
  const deleted = await uploadStore.delete(record.workspace, record.id, expiredBefore).catch(() => false);
  if (deleted) await deleteParts(blobStore, record.parts);
  return deleted;
}
