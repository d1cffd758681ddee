import type { BlobStore } from '../ports/blob-store.js';
import { imageSize } from './image-size.js';
import { ingest } from './ingest.js';
import { SNIFF_HEAD_BYTES, sniffMediaType } from './sniff.js';
import type { ByteSource } from './types.js';

export interface StoredContent {
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly width?: number | undefined;
  readonly height?: number | undefined;
}

/**
 * Streams a body into a new blob and describes what was stored: the type is
 * sniffed from the content alone (client names and types are never asked).
 */
export async function storeContent(blobStore: BlobStore, blobKey: string, body: ByteSource, maxBytes: number): Promise<StoredContent> {
  const { size, sha256, head } = await ingest(body, blobStore, blobKey, { maxBytes, headBytes: SNIFF_HEAD_BYTES });
  const type = await sniffMediaType(head, size);
  const dimensions = await imageSize(type, head);
  return { type, size, sha256, width: dimensions?.width, height: dimensions?.height };
}
