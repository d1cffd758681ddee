import { Readable } from 'node:stream';
import { invalidArgument, SwitchyardError } from '../errors.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore, ByteRange } from '../ports/blob-store.js';
import type { Visibility } from './visibility.js';
import { fileNotFound } from './asset-errors.js';
import { parsePublicPath } from './blob-naming.js';
import { extensionFor } from './extension.js';
import type { OpenFileOptions, StoredFile } from './types.js';
import type { Clock } from '../clock.js';
import type { UrlSigner } from './signed-urls.js';
import type { AssetRecord } from '../ports/asset-store.js';
import { hasTransform, parseTransform } from './transform/transform-params.js';
import type { VariantMaker } from './transform/variants.js';
import type { FileCache, OpenedBytes } from './file-cache.js';
import { downloadName } from './asset-name.js';

interface Deps {
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  readonly clock: Clock;
  readonly urlSigner: UrlSigner;
  readonly variants: VariantMaker;
  readonly fileCache: FileCache;
}

/**
 * The current file behind a public path. Only the path of an asset's current
 * blob, with the extension of its current type, opens anything; a path from
 * before a replace is `not_found`, as is a blob deleted while being opened.
 */
export async function openFile(deps: Deps, path: string, options: OpenFileOptions = {}): Promise<StoredFile> {
  const { assetId, blobId, extension } = parsePublicPath(path);
  const record = await deps.assetStore.getByBlobId(blobId);
  if (!record || record.id !== assetId || extensionFor(record.type) !== extension) throw fileNotFound();
  // Not found comes first: a signature never tells whether a path existed.
  if (record.visibility === 'private') deps.urlSigner.verify(path, record.linkEpoch, options.query ?? '', deps.clock.now().getTime());
  if (options.transform !== undefined && hasTransform(options.transform)) return openVariant(deps, record, options);
  const range = resolveRange(options.range, record.size);
  const name = downloadName(record.id, record.name, record.type, record.type);
  const info: StoredFile = {
    type: record.type,
    size: record.size,
    sha256: record.sha256,
    uploadedAt: new Date(record.uploadedAt),
    visibility: record.visibility,
    name,
    range,
  };
  if (options.infoOnly || record.size === 0) return Object.freeze(info);
  const opened = await deps.fileCache.open(deps.blobStore, record.blobKey, record.size, options.range ? range : undefined);
  if (!opened) throw fileNotFound();
  return withBytes(info, opened);
}

/** A derived image of the file: made (once) and stored on first use, then read like a file. Its `sha256` names the variant (its ETag). */
async function openVariant(deps: Deps, record: AssetRecord, options: OpenFileOptions): Promise<StoredFile> {
  const transform = parseTransform(options.transform!, deps.variants.config.sizes);
  // A second try when a variant the maker knew of is gone from the store: it is looked for, or made, again.
  for (let attempt = 0; ; attempt++) {
    const variant = await deps.variants.variant(record, transform);
    const range = resolveRange(options.range, variant.info.size);
    const name = downloadName(record.id, record.name, record.type, variant.type);
    const info: StoredFile = {
      type: variant.type,
      size: variant.info.size,
      sha256: variant.digest,
      uploadedAt: new Date(record.uploadedAt),
      visibility: record.visibility,
      name,
      range,
    };
    if (options.infoOnly || variant.info.size === 0) return Object.freeze(info);
    const opened = await deps.fileCache.open(deps.blobStore, variant.key, variant.info.size, options.range ? range : undefined);
    if (opened) return withBytes(info, opened);
    deps.variants.forget(variant);
    if (attempt > 0) throw fileNotFound();
  }
}

/**
 * The file with its bytes. Bytes already in memory get a `body` made only if
 * someone reads it: the gRPC handler writes them whole, and a stream made and
 * destroyed per request would cost CPU for nothing.
 * Justified by file-serve-16kib (bench/hand-written-parts.md#lazy-file-body).
 */
function withBytes(info: StoredFile, opened: OpenedBytes): StoredFile {
  return Object.freeze(opened.body ? { ...info, body: opened.body } : new FileInMemory(info, opened.bytes));
}

/** A file whose bytes are in memory, with its stream made on first use. A class: an object with a getter added was a slow dictionary. */
class FileInMemory implements StoredFile {
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly uploadedAt: Date;
  readonly visibility: Visibility;
  readonly name: string;
  readonly range: ByteRange;
  #body: Readable | undefined;

  constructor(
    info: StoredFile,
    readonly bytes: Buffer,
  ) {
    this.type = info.type;
    this.size = info.size;
    this.sha256 = info.sha256;
    this.uploadedAt = info.uploadedAt;
    this.visibility = info.visibility;
    this.name = info.name;
    this.range = info.range;
  }

  get body(): Readable {
    return (this.#body ??= Readable.from([this.bytes]));
  }
}

/**
 * The inclusive range to serve: the whole file without a request (`0..-1`
 * for an empty file); a requested range must start inside the file and not
 * end before it starts (`out_of_range`), and its end is clamped to the last byte.
 */
export function resolveRange(requested: ByteRange | undefined, size: number): ByteRange {
  if (requested === undefined) return { start: 0, end: size - 1 };
  const { start, end } = requested;
  if (!isOffset(start) || !isOffset(end)) throw invalidArgument('range', 'start and end must be non-negative integers');
  if (start > end || start >= size) {
    throw new SwitchyardError('out_of_range', `range ${start}-${end} is not satisfiable for a file of ${size} bytes`, [
      { field: 'range', reason: `the file has ${size} bytes` },
    ]);
  }
  return { start, end: Math.min(end, size - 1) };
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
