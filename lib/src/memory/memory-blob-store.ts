import { Readable } from 'node:stream';
import { SwitchyardError } from '../errors.js';
import { assertBlobOffset, blobTooShort } from '../ports/blob-offset.js';
import { assertBlobKey } from '../ports/blob-key.js';
import type { BlobInfo, BlobStore, ByteRange } from '../ports/blob-store.js';

interface StoredBlob {
  readonly bytes: Buffer;
  readonly modifiedAt: Date;
}

/** BlobStore in process memory. Holds whole files: for tests and small embedders only. */
export class MemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<string, StoredBlob>();

  async put(key: string, body: Readable): Promise<void> {
    assertBlobKey(key);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    // Only a body that ended normally is stored: a destroyed stream throws above.
    this.#blobs.set(key, { bytes: Buffer.concat(chunks), modifiedAt: new Date() });
  }

  /** Each write stores a new buffer, so a blob `link`ed from this one never changes. */
  async writeAt(key: string, offset: number, body: Readable): Promise<void> {
    assertBlobKey(key);
    assertBlobOffset(offset);
    const kept = this.#blobs.get(key)?.bytes ?? Buffer.alloc(0);
    if (offset > kept.length) throw blobTooShort(key, offset);
    const chunks: Buffer[] = [kept.subarray(0, offset)];
    try {
      for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    } finally {
      // On a failure too: the blob keeps its first `offset` bytes and what arrived after them.
      this.#blobs.set(key, { bytes: Buffer.concat(chunks), modifiedAt: new Date() });
    }
  }

  async link(from: string, to: string): Promise<void> {
    assertBlobKey(from);
    assertBlobKey(to);
    const blob = this.#blobs.get(from);
    if (!blob) throw new SwitchyardError('not_found', 'no blob to link from', [{ field: 'from', reason: 'no such blob' }]);
    this.#blobs.set(to, { bytes: blob.bytes, modifiedAt: new Date() });
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    assertBlobKey(key);
    const blob = this.#blobs.get(key);
    if (!blob) return undefined;
    const bytes = range ? blob.bytes.subarray(range.start, Math.min(range.end, blob.bytes.length - 1) + 1) : blob.bytes;
    return Readable.from([bytes], { objectMode: false });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    const blob = this.#blobs.get(key);
    return blob ? { key, size: blob.bytes.length, modifiedAt: blob.modifiedAt } : undefined;
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    this.#blobs.delete(key);
  }

  async *list(): AsyncIterable<BlobInfo> {
    for (const [key, blob] of this.#blobs) yield { key, size: blob.bytes.length, modifiedAt: blob.modifiedAt };
  }

  async check(): Promise<void> {}
}
