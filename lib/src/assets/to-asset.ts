import type { AssetRecord } from '../ports/asset-store.js';
import { publicPathFor } from './blob-naming.js';
import type { Asset } from './types.js';

/** The public view of a stored record; `cdnUrl` has no trailing slash. */
export function toAsset(record: AssetRecord, cdnUrl: string): Asset {
  return Object.freeze({
    id: record.id,
    type: record.type,
    size: record.size,
    url: `${cdnUrl}/${publicPathFor(record.id, record.blobId, record.type)}`,
    uploadedAt: new Date(record.uploadedAt),
    createdAt: new Date(record.createdAt),
    label: record.label,
    name: record.name,
    sha256: record.sha256,
    width: record.width,
    height: record.height,
    durationMs: record.durationMs,
    pages: record.pages,
    placeholder: record.placeholder,
    visibility: record.visibility,
  });
}
