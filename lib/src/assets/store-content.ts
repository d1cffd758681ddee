import type { BlobStore } from '../ports/blob-store.js';
import { imageSize } from './image-size.js';
import { forget, ingest } from './ingest.js';
import type { MediaDescriber } from './media/describe-media.js';
import type { StoredFacts } from './media/media-facts.js';
import { STRIPPABLE_TYPES, stripImageMetadata } from './media/strip-metadata.js';
import { SNIFF_HEAD_BYTES, sniffMediaType } from './sniff.js';
import type { ByteSource } from './types.js';
import { admitType, type WorkspacePolicy } from './workspace-policy.js';

export interface StoredContent extends StoredFacts {
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
}

export interface ContentDeps {
  readonly blobStore: BlobStore;
  readonly describer: MediaDescriber;
  /** Images with more pixels are not stripped of their metadata (and so refused where the policy strips). */
  readonly maxPixels: number;
}

/**
 * Streams a body into a new blob and describes what was stored: the type is
 * sniffed from the content alone (client names and types are never asked).
 * The workspace policy is enforced on the way: its size limit as the bytes
 * arrive, its allowed types as soon as the head is sniffed, before a byte is
 * stored; a refused file leaves nothing behind. Where the policy strips image
 * metadata, the stored image is rewritten without it before anything
 * describes it (its size and sha256 are the new file's). Then its media facts
 * are read (describe-media.ts), which never fails the upload.
 */
export async function storeContent(deps: ContentDeps, blobKey: string, body: ByteSource, policy: WorkspacePolicy): Promise<StoredContent> {
  const { blobStore } = deps;
  let type = '';
  const admit = async (head: Uint8Array, totalSize: number | undefined) => {
    type = await sniffMediaType(head, totalSize ?? Number.POSITIVE_INFINITY);
    admitType(policy, type);
  };
  const ingested = await ingest(body, blobStore, blobKey, { maxBytes: policy.maxUploadBytes, headBytes: SNIFF_HEAD_BYTES, admit });
  if (policy.stripImageMetadata && STRIPPABLE_TYPES.has(type) && ingested.size > 0) {
    let stripped;
    try {
      stripped = await stripImageMetadata(blobStore, blobKey, type, deps.maxPixels);
    } catch (error) {
      // The file as it came must not stay: it is what the policy keeps from being published.
      await forget(blobStore, blobKey);
      throw error;
    }
    const head = await readHead(blobStore, blobKey);
    const facts = await deps.describer.describe(
      { key: blobKey, type, size: stripped.size, head },
      { width: stripped.width, height: stripped.height },
    );
    return { type, size: stripped.size, sha256: stripped.sha256, ...facts };
  }
  const known = await imageSize(type, ingested.head);
  const facts = await deps.describer.describe({ key: blobKey, type, size: ingested.size, head: ingested.head }, known ?? {});
  return { type, size: ingested.size, sha256: ingested.sha256, ...facts };
}

/** The first SNIFF_HEAD_BYTES of a stored blob (a rewritten file's head, for the describer). */
export async function readHead(blobStore: BlobStore, key: string, bytes = SNIFF_HEAD_BYTES): Promise<Uint8Array> {
  const body = await blobStore.get(key, { start: 0, end: bytes - 1 });
  if (body === undefined) return new Uint8Array(0);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= bytes) break;
  }
  body.destroy();
  return Buffer.concat(chunks, Math.min(length, bytes));
}
