import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { AssetService, type Asset, type ReplaceAssetRequestSchema, type UploadAssetRequestSchema } from '@switchyard/proto';

/** Largest chunk per message: well under the service's 4 MiB message limit. */
export const CHUNK_BYTES = 256 * 1024;

export interface UploadOptions {
  /** Label or category (at most 200 characters). */
  readonly label?: string;
  /** The asset's name (for a replace: its new name; none keeps it). Never its type: the service sniffs that from the bytes. */
  readonly filename?: string;
  readonly declaredType?: string;
  readonly signal?: AbortSignal;
}

export type ReplaceOptions = Omit<UploadOptions, 'label'>;

/** Re-slices any byte chunks into messages of at most CHUNK_BYTES. */
export async function* chunksOf(bytes: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of bytes) {
    for (let offset = 0; offset < chunk.byteLength; offset += CHUNK_BYTES) yield chunk.subarray(offset, offset + CHUNK_BYTES);
  }
}

async function* uploadMessages(
  bytes: AsyncIterable<Uint8Array>,
  options: UploadOptions,
): AsyncGenerator<MessageInitShape<typeof UploadAssetRequestSchema>> {
  yield {
    payload: {
      case: 'metadata',
      value: { label: options.label ?? '', filename: options.filename ?? '', declaredType: options.declaredType ?? '' },
    },
  };
  for await (const chunk of chunksOf(bytes)) yield { payload: { case: 'chunk', value: chunk } };
}

async function* replaceMessages(
  id: string,
  bytes: AsyncIterable<Uint8Array>,
  options: ReplaceOptions,
): AsyncGenerator<MessageInitShape<typeof ReplaceAssetRequestSchema>> {
  yield { payload: { case: 'metadata', value: { id, filename: options.filename ?? '', declaredType: options.declaredType ?? '' } } };
  for await (const chunk of chunksOf(bytes)) yield { payload: { case: 'chunk', value: chunk } };
}

/** Streams `bytes` to UploadAsset: metadata first, then the file in chunks. */
export function upload(assets: Client<typeof AssetService>, bytes: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<Asset> {
  return assets.uploadAsset(uploadMessages(bytes, options), { signal: options.signal, timeoutMs: 0 });
}

/** Streams `bytes` to ReplaceAsset; the asset keeps its id. */
export function replace(
  assets: Client<typeof AssetService>,
  id: string,
  bytes: AsyncIterable<Uint8Array>,
  options: ReplaceOptions,
): Promise<Asset> {
  return assets.replaceAsset(replaceMessages(id, bytes, options), { signal: options.signal, timeoutMs: 0 });
}
