import { createHash } from 'node:crypto';
import { createUlidSource } from '../ids.js';
import type { AssetContent, AssetRecord } from '../ports/asset-store.js';
import type { AssetWrite, ChangeAuthor } from '../ports/asset-change-log.js';

// Records for the AssetStore conformance cases, and how they compare.

export const ids = createUlidSource();

/** The author of the cases' writes that do not look at the change log. */
export const by: ChangeAuthor = Object.freeze({ actor: 'conformance', time: new Date('2024-05-06T07:08:09.456Z') });

/** Content for a new blob of `workspace`; an image unless overridden. */
export function sampleContent(workspace: string, overrides: Partial<AssetContent> = {}): AssetContent {
  const blobId = ids.next('blob');
  return {
    blobId,
    blobKey: `${workspace}/${blobId}.png`,
    type: 'image/png',
    size: 1234,
    sha256: createHash('sha256').update(blobId).digest('hex'),
    width: 640,
    height: 480,
    uploadedAt: new Date('2024-05-06T07:08:09.123Z'),
    ...overrides,
  };
}

/** A version-1 asset record of `workspace`. The label and name are non-ASCII on purpose (4-byte UTF-8 included). */
export function sampleAsset(workspace: string, overrides: Partial<AssetRecord> = {}): AssetRecord {
  const content = sampleContent(workspace);
  return {
    ...content,
    id: ids.next('asset'),
    workspace,
    label: 'Fotos – Sommer ☀ 📷',
    name: 'Strand – Ärmelkanal 🌊.PNG',
    createdAt: content.uploadedAt,
    version: 1,
    visibility: 'public',
    linkEpoch: 0,
    ...overrides,
  };
}

/** Every field, spelled out: a missing optional field equals `undefined`, but `null` does not. A write is viewed as its record. */
export function view(value: AssetRecord | AssetWrite | undefined): unknown {
  if (!value) return value;
  const record = 'change' in value ? value.record : value;
  const time = (value: Date) => (value instanceof Date ? value.toISOString() : `not a Date: ${String(value)}`);
  return {
    id: record.id,
    workspace: record.workspace,
    label: record.label,
    name: record.name,
    version: record.version,
    createdAt: time(record.createdAt),
    blobId: record.blobId,
    blobKey: record.blobKey,
    type: record.type,
    size: record.size,
    sha256: record.sha256,
    width: record.width,
    height: record.height,
    uploadedAt: time(record.uploadedAt),
    visibility: record.visibility,
    linkEpoch: record.linkEpoch,
    durationMs: record.durationMs,
    pages: record.pages,
    placeholder: record.placeholder,
    // Absent and 0 both say no describer looked at the file.
    factsVersion: record.factsVersion || undefined,
  };
}

/** What a record must look like after a swap of `content` onto `before`. */
export function swapped(before: AssetRecord, content: AssetContent): AssetRecord {
  const { width, height, durationMs, pages, placeholder, factsVersion } = content;
  return { ...before, ...content, width, height, durationMs, pages, placeholder, factsVersion, version: before.version + 1 };
}
