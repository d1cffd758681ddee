import { Readable } from 'node:stream';
import { invalidArgument, SwitchyardError, toSwitchyardError } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import { bodyFailure, ByteMeter, tooLarge, type AdmitHead } from './byte-meter.js';
import { offThreadSha256 } from './off-thread-hash.js';
import { linkableBody, type StoredBlobBody } from './stored-blob-body.js';
import type { ByteSource } from './types.js';

export interface IngestOptions {
  /** Largest accepted body; one byte more fails the put with `resource_exhausted`. */
  readonly maxBytes: number;
  /** How many leading bytes to keep for sniffing. */
  readonly headBytes: number;
  /** Judges the head before any byte is stored; throwing refuses the file. */
  readonly admit?: AdmitHead | undefined;
}

export interface IngestResult {
  readonly size: number;
  /** Lower-case hex SHA-256 of all bytes. */
  readonly sha256: string;
  /** The first `headBytes` bytes (all of them for a smaller file). */
  readonly head: Uint8Array;
}

/**
 * Streams a body into the blob store under `key`, counting, hashing (in a
 * worker thread: off-thread-hash.ts) and keeping its head on the way. Memory stays constant: chunks are pulled only
 * as fast as the store takes them. On any failure (too large, the body fails
 * or is cancelled, the store fails) nothing stays stored under `key` and the
 * error says why. A body that is a stored blob (`StoredBlobBody`) is only
 * read (only its head, when its sha256 is known), and its blob linked to
 * `key` once it passed.
 */
export async function ingest(source: ByteSource, blobStore: BlobStore, key: string, options: IngestOptions): Promise<IngestResult> {
  if (!isByteSource(source)) throw invalidArgument('file', 'a file body is required');
  const stored = linkableBody(source, blobStore);
  if (stored?.sha256 !== undefined) return linkDigested(stored, stored.sha256, key, options);
  const meter = new ByteMeter(options.maxBytes, options.headBytes, offThreadSha256(), options.admit);
  const passed = meter.pass(source);
  const body = stored === undefined ? Readable.from(passed, { objectMode: false }) : undefined;
  try {
    if (body !== undefined) {
      await blobStore.put(key, body);
    } else {
      // Read only, to be sniffed, judged and hashed: the bytes are in the store already.
      for await (const _ of passed);
      await linkExactly(blobStore, stored!, key);
    }
  } catch (error) {
    body?.destroy();
    meter.dispose();
    await forget(blobStore, key);
    throw meter.failure ?? toSwitchyardError(error);
  }
  // A store that resolved without taking the whole body broke its contract: do not keep half a file.
  if (!meter.finished) {
    meter.dispose();
    await forget(blobStore, key);
    throw meter.failure ?? new SwitchyardError('internal', 'the blob store stopped reading before the end of the file');
  }
  try {
    return await meter.result();
  } catch (error) {
    await forget(blobStore, key);
    throw toSwitchyardError(error);
  }
}

/**
 * A stored blob whose size and sha256 are known: only its head is read, and
 * judged as the meter judges a streamed body's, with its checks in the order
 * a streamed body meets them (the size limit first only when it falls inside
 * the head); then the blob is linked to `key`.
 */
async function linkDigested(source: StoredBlobBody, sha256: string, key: string, options: IngestOptions): Promise<IngestResult> {
  const { size } = source;
  if (size > options.maxBytes && options.maxBytes < options.headBytes) throw tooLarge(options.maxBytes);
  let head: Uint8Array;
  try {
    head = await readHead(source, options.headBytes);
    await options.admit?.(head, size > options.headBytes ? undefined : size);
  } catch (error) {
    throw bodyFailure(error);
  }
  if (size > options.maxBytes) throw tooLarge(options.maxBytes);
  try {
    await linkExactly(source.blobStore, source, key);
  } catch (error) {
    await forget(source.blobStore, key);
    throw toSwitchyardError(error);
  }
  return { size, sha256, head };
}

/**
 * Links the stored blob to `key` holding the body's bytes and no more: a link
 * shares the whole blob, and bytes past the ones judged and hashed (left by a
 * failed write past the committed ones) would be served as the asset's. The
 * blob is cut to its size first where the store can; should it still differ,
 * it is refused with `internal` rather than stored.
 */
async function linkExactly(blobStore: BlobStore, source: StoredBlobBody, key: string): Promise<void> {
  // Only when it is longer: a cut syncs the file, a journal commit on most file systems.
  if (blobStore.writeAt && (await blobStore.stat(source.key))?.size !== source.size)
    await blobStore.writeAt(source.key, source.size, Readable.from([], { objectMode: false }));
  await blobStore.link!(source.key, key);
  const linked = await blobStore.stat(key);
  if (linked?.size !== source.size) {
    throw new SwitchyardError('internal', `blob ${source.key} holds ${linked?.size ?? 'no'} bytes where the upload has ${source.size}`, [
      { field: 'key', reason: 'stored bytes differ from the upload' },
    ]);
  }
}

/** The first `headBytes` bytes of a body (all of a smaller one); it is not read further. */
async function readHead(source: AsyncIterable<Uint8Array>, headBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of source) {
    chunks.push(chunk.subarray(0, headBytes - length));
    length += chunks.at(-1)!.length;
    if (length >= headBytes) break;
  }
  return Buffer.concat(chunks, length);
}

/** All-or-nothing puts should leave nothing behind; deleting again costs little and covers stores that slip. */
export async function forget(blobStore: BlobStore, key: string): Promise<void> {
  await blobStore.delete(key).catch(() => undefined);
}

function isByteSource(source: unknown): source is ByteSource {
  return typeof (source as Partial<AsyncIterable<unknown>> | null | undefined)?.[Symbol.asyncIterator] === 'function';
}
