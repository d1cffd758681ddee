import { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { isSwitchyardError, SwitchyardError, toSwitchyardError } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { UploadPart, UploadRecord, UploadStore } from '../ports/upload-store.js';
import { StoredBlobBody } from '../assets/stored-blob-body.js';
import type { RunningDigests } from './running-digests.js';
import type { Asset, AssetService, ByteSource } from '../assets/types.js';

/** Codes after which the same finish may succeed if tried again: the upload and its bytes are kept. */
const RETRYABLE = new Set(['unavailable', 'internal', 'canceled', 'deadline_exceeded', 'aborted']);

/** A part gone from the store: trying again cannot help. */
const MISSING_PART = 'parts';

/**
 * How much of a part is read at a time when finishing (a hint the disk store
 * takes). The same size as the gateway's chunks of a plain upload, so the
 * asset's blob is written in the same 1 MiB pieces as a direct upload's, not
 * in the disk store's 64 KiB default.
 * Justified by tus-upload-throughput-256mib (bench/hand-written-parts.md#finish-read-size).
 */
const PART_READ_BYTES = 1024 * 1024;

export function isRetryable(error: SwitchyardError): boolean {
  return RETRYABLE.has(error.code) && !error.details.some((detail) => detail.field === MISSING_PART);
}

/**
 * Turns a complete upload into an asset through the plain upload (or replace)
 * path, so the sniffing, the workspace policy, the size limit, the sha256 and
 * the all-or-nothing guarantees are exactly those of a direct upload. When all
 * the bytes are one blob (appends written into it with `writeAt`) and the
 * store can link, that blob is read once (or only its head, when `digests`
 * has its sha256) and linked to the asset's key rather than written again.
 */
export async function makeAsset(
  assets: AssetService,
  blobStore: BlobStore,
  principal: Principal,
  record: UploadRecord,
  digests?: RunningDigests,
): Promise<Asset> {
  const body = await finishedBytes(blobStore, record, digests);
  const { intent } = record;
  try {
    if (intent.replace !== undefined)
      return await assets.replace(principal, intent.replace, { body, filename: intent.filename, visibility: intent.visibility });
    return await assets.upload(principal, { body, filename: intent.filename, label: intent.label, visibility: intent.visibility });
  } catch (error) {
    if (body instanceof Readable) body.destroy();
    throw toSwitchyardError(error);
  }
}

async function finishedBytes(blobStore: BlobStore, record: UploadRecord, digests: RunningDigests | undefined): Promise<ByteSource> {
  const runs = blobRuns(record.parts);
  const only = runs.length === 1 ? runs[0]! : undefined;
  // Linked as it is, the blob must hold the upload's bytes and nothing after them (a cut append's leftovers).
  if (only !== undefined && blobStore.link !== undefined && (await blobStore.stat(only.key).catch(() => undefined))?.size === only.size) {
    const sha256 = await digests?.sha256(record.id, only.key, only.size);
    return new StoredBlobBody({ blobStore, key: only.key, size: only.size, sha256, bytes: runBytes(blobStore, runs) });
  }
  return Readable.from(runBytes(blobStore, runs), { objectMode: false });
}

/**
 * The upload's blobs in order, each with how many of its first bytes are the
 * upload's: consecutive parts with one key are consecutive runs of one blob
 * (appended with `writeAt`), so they read as one.
 */
export function blobRuns(parts: readonly UploadPart[]): UploadPart[] {
  const runs: UploadPart[] = [];
  for (const part of parts) {
    const last = runs.at(-1);
    if (last?.key === part.key) runs[runs.length - 1] = { key: part.key, size: last.size + part.size };
    else runs.push(part);
  }
  return runs;
}

/** The runs' bytes in order, one blob open at a time. */
async function* runBytes(blobStore: BlobStore, runs: readonly UploadPart[]): AsyncGenerator<Uint8Array> {
  for (const run of runs) {
    if (run.size === 0) continue;
    const stream = await blobStore.get(run.key, { start: 0, end: run.size - 1 }, { chunkBytes: PART_READ_BYTES });
    // A part lost from the store (a crash mid-way, an operator): the upload cannot be finished, and must not pretend to.
    if (stream === undefined) throw partLost(`a stored part of the upload is missing (${run.key})`);
    let size = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        yield chunk;
      }
    } catch (error) {
      // The store failed mid-read (a socket timeout, EIO): a passing failure, which must not read as a broken body.
      throw isSwitchyardError(error)
        ? error
        : new SwitchyardError('unavailable', 'reading a stored part of the upload failed; try again', [], { cause: error });
    }
    if (size !== run.size) throw partLost(`a stored part of the upload has ${size} bytes instead of ${run.size} (${run.key})`);
  }
}

export function partLost(message: string): SwitchyardError {
  return new SwitchyardError('internal', message, [{ field: MISSING_PART, reason: 'the upload lost stored bytes and cannot be finished' }]);
}

export async function deleteParts(blobStore: BlobStore, parts: readonly UploadPart[]): Promise<void> {
  // Best effort: what stays behind is found by gc, which removes parts of uploads that no longer exist.
  await Promise.all(blobRuns(parts).map((run) => blobStore.delete(run.key).catch(() => undefined)));
}

/** Removes an upload and its stored bytes; with `expiredBefore`, only if it is still expired then (a commit may have renewed it). */
export async function discardUpload(
  uploadStore: UploadStore,
  blobStore: BlobStore,
  record: UploadRecord,
  expiredBefore?: Date,
): Promise<boolean> {
  const deleted = await uploadStore.delete(record.workspace, record.id, expiredBefore).catch(() => false);
  if (deleted) await deleteParts(blobStore, record.parts);
  return deleted;
}
