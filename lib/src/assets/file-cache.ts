import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { BlobStore, ByteRange } from '../ports/blob-store.js';
import { isSwitchyardError, SwitchyardError } from '../errors.js';

/** How much memory small files may take, and what counts as small. */
export interface FileCacheConfig {
  /** Total bytes kept (0: no cache). */
  readonly maxBytes: number;
  /** Files larger than this are always streamed from the store. */
  readonly maxFileBytes: number;
}

/** A file's bytes: streamed from the store, or whole from memory. */
export type OpenedBytes = { readonly body: Readable; readonly bytes?: undefined } | { readonly body?: undefined; readonly bytes: Buffer };

export const DEFAULT_FILE_CACHE: FileCacheConfig = Object.freeze({ maxBytes: 64 * 1024 * 1024, maxFileBytes: 256 * 1024 });

/**
 * The bytes of small files served by url, kept in memory by blob key (least
 * recently used out first). Opening a file from the disk store costs four
 * thread-pool round trips (open, fstat, read, close), from S3 a request; for a
 * small file that is much of the work of serving it.
 * Justified by file-serve-16kib (bench/hand-written-parts.md#file-cache).
 *
 * An entry is never stale: a blob's bytes never change under its key (an upload
 * or a replace writes a new blob id; a variant's key names its source blob
 * and its transformation). The asset record is still read on every request,
 * so a delete, a visibility change or a revocation counts at once.
 */
export class FileCache {
  readonly #entries: LRUCache<string, Buffer> | undefined;
  readonly #maxFileBytes: number;

  constructor(config: FileCacheConfig) {
    this.#maxFileBytes = config.maxFileBytes;
    this.#entries =
      config.maxBytes > 0 && config.maxFileBytes > 0
        ? new LRUCache({ maxSize: config.maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.length) })
        : undefined;
  }

  /**
   * `key`'s bytes (or `range` of them): whole from memory when the file is
   * small (`bytes`), else as the store's stream (`body`); `undefined` when the
   * store has no such blob. `size` is the size the asset record gives: bytes read that do not
   * match it are served but not kept.
   */
  async open(blobs: BlobStore, key: string, size: number, range: ByteRange | undefined): Promise<OpenedBytes | undefined> {
    const entries = this.#entries;
    if (entries === undefined || size > this.#maxFileBytes || size > (entries.maxSize ?? 0)) {
      const body = await blobs.get(key, range);
      return body && { body };
    }
    let bytes = entries.get(key);
    // What the record says must be what is served: an entry of another size is not the file's (never expected).
    if (bytes !== undefined && bytes.length !== size) bytes = undefined;
    if (bytes === undefined) {
      const body = await blobs.get(key);
      if (body === undefined) return undefined;
      bytes = await readAll(body);
      if (bytes.length === size) entries.set(key, bytes);
    }
    // A range is already clamped to the file's size by the caller.
    const served = range === undefined ? bytes : bytes.subarray(range.start, range.end + 1);
    return { bytes: served };
  }
}

/**
 * The whole stream in one buffer of its own, so an entry keeps alive only its
 * own bytes: a read chunk may be a view of a larger buffer, and Buffer.concat
 * puts small results in Node's shared 8 KiB pool. A store's failure mid-read
 * is `unavailable`, as a failed open would be.
 */
async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      total += (chunk as Buffer).length;
    }
  } catch (error) {
    throw isSwitchyardError(error)
      ? error
      : new SwitchyardError('unavailable', 'the file could not be read from the blob store', [], { cause: error });
  }
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(bytes, at);
  return bytes;
}
