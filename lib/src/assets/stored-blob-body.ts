import type { BlobStore } from '../ports/blob-store.js';

/**
 * A body whose bytes are all those of one blob already in the store (a
 * resumable upload's, once complete). An upload or replace reads it like any
 * body, to sniff, judge, count and hash it, but where the store can link
 * blobs it then gives that blob the asset's key instead of writing the bytes
 * a second time. `bytes` must be the blob's whole content, and fail otherwise.
 */
export class StoredBlobBody implements AsyncIterable<Uint8Array> {
  readonly blobStore: BlobStore;
  readonly key: string;
  readonly size: number;
  /**
   * The lower-case hex sha256 of the blob, when known already (hashed as it
   * was written): then only its head is read.
   */
  readonly sha256: string | undefined;
  readonly #bytes: AsyncIterable<Uint8Array>;

  constructor(options: { blobStore: BlobStore; key: string; size: number; sha256?: string | undefined; bytes: AsyncIterable<Uint8Array> }) {
    this.blobStore = options.blobStore;
    this.key = options.key;
    this.size = options.size;
    this.sha256 = options.sha256;
    this.#bytes = options.bytes;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.#bytes[Symbol.asyncIterator]();
  }
}

/** `source` as a blob to link to the asset's key instead of storing its bytes, when it is one of `blobStore` and the store can. */
export function linkableBody(source: unknown, blobStore: BlobStore): StoredBlobBody | undefined {
  return source instanceof StoredBlobBody && source.blobStore === blobStore && typeof blobStore.link === 'function' ? source : undefined;
}
