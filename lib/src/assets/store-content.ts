import type { BlobStore } from '../ports/blob-store.js';
import { imageSize } from './image-size.js';
import { ingest } from './ingest.js';
import { SNIFF_HEAD_BYTES, sniffMediaType } from './sniff.js';
import type { ByteSource } from './types.js';
import { admitType, type WorkspacePolicy } from './workspace-policy.js';

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
 * The workspace policy is enforced on the way: its size limit as the bytes
 * arrive, its allowed types as soon as the head is sniffed, before a byte is
 * stored; a refused file leaves nothing behind.
 */
export async function storeContent(blobStore: BlobStore, blobKey: string, body: ByteSource, policy: WorkspacePolicy): Promise<StoredContent> {
  let type = '';
  const admit = async (head: Uint8Array, totalSize: number | undefined) => {
    type = await sniffMediaType(head, totalSize ?? Number.POSITIVE_INFINITY);
    admitType(policy, type);
  };
  const { size, sha256, head } = await ingest(body, blobStore, blobKey, { maxBytes: policy.maxUploadBytes, headBytes: SNIFF_HEAD_BYTES, admit });
  const dimensions = await imageSize(type, head);
  return { type, size, sha256, width: dimensions?.width, height: dimensions?.height };
}
