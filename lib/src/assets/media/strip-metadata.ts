import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { SwitchyardError } from '../../errors.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { loadSharp } from '../image-size.js';

/** Types whose metadata a workspace policy may strip: the formats sharp writes back as they came. */
export const STRIPPABLE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif']);

export interface StrippedImage {
  readonly size: number;
  readonly sha256: string;
  readonly width: number;
  readonly height: number;
}

/** How long one strip may take: a re-encode of a large AVIF takes seconds, a hostile file no longer than this. */
const STRIP_TIMEOUT_SECONDS = 60;

/**
 * Rewrites the image stored under `key` without its EXIF, XMP and IPTC (GPS
 * included: sharp writes none of them unless told), its EXIF orientation
 * applied to the pixels so it still shows upright, its ICC profile kept so
 * colours do not shift. The pixels are re-encoded in the same format: JPEG and
 * WebP at quality 90, AVIF at 70, PNG losslessly; an animated WebP keeps its
 * frames. The new file replaces the old one under the same key (puts are
 * all-or-nothing). An image sharp cannot decode, or with more than `maxPixels`,
 * is refused (`invalid_argument`): storing it as it came could publish where
 * it was taken.
 */
export async function stripImageMetadata(blobStore: BlobStore, key: string, type: string, maxPixels: number): Promise<StrippedImage> {
  const sharp = await loadSharp();
  if (sharp === undefined)
    throw new SwitchyardError(
      'unavailable',
      'this workspace strips image metadata, which needs the optional dependency sharp; it is not installed; nothing was stored',
    );
  const path = await blobStore.localPath?.(key);
  const source = path ?? (await blobStore.get(key));
  if (source === undefined) throw new SwitchyardError('unavailable', 'the uploaded image is gone from the blob store; try again');
  const animated = type === 'image/webp';
  const options = { limitInputPixels: maxPixels, failOn: 'none', animated } as const;
  let pipeline = (typeof source === 'string' ? sharp(source, options) : sharp(options))
    .timeout({ seconds: STRIP_TIMEOUT_SECONDS })
    .autoOrient()
    .keepIccProfile();
  pipeline =
    type === 'image/jpeg'
      ? pipeline.jpeg({ quality: 90 })
      : type === 'image/png'
        ? pipeline.png()
        : type === 'image/webp'
          ? pipeline.webp({ quality: 90 })
          : pipeline.avif({ quality: 70, effort: 2 });
  if (typeof source !== 'string') source.on('error', (error) => pipeline.destroy(error)).pipe(pipeline);
  const hash = createHash('sha256');
  let size = 0;
  let shown: { width: number; height: number } | undefined;
  pipeline.on(
    'info',
    (info: { width: number; height: number; pageHeight?: number }) =>
      void (shown = { width: info.width, height: info.pageHeight ?? info.height }),
  );
  // Counted as the store reads, not by a 'data' listener: that would set the stream flowing before the store
  // attaches (a disk put first makes its temp folder), and the chunks of that moment would be counted, hashed
  // and never stored: a record larger than its file (CI saw the file url's answer cut short).
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  pipeline.on('error', (error) => counted.destroy(error));
  try {
    await blobStore.put(key, pipeline.pipe(counted));
  } catch (error) {
    if (error instanceof SwitchyardError && error.code !== 'invalid_argument') throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new SwitchyardError(
      'invalid_argument',
      /pixel limit/i.test(message)
        ? `the image has more than ${maxPixels} pixels, too many to remove its metadata (this workspace strips image metadata); nothing was stored`
        : 'the image could not be decoded to remove its metadata (this workspace strips image metadata); nothing was stored',
      [{ field: 'file', reason: 'not an image whose metadata can be removed' }],
      { cause: error },
    );
  }
  if (shown === undefined) throw new SwitchyardError('internal', 'sharp wrote an image without telling its size');
  return { size, sha256: hash.digest('hex'), ...shown };
}
