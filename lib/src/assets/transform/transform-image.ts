import { SwitchyardError } from '../../errors.js';
import { loadSharp } from '../image-size.js';
import type { ImageTransform, TransformFormat } from './transform-params.js';

/** Source types that are transformed: raster images sharp decodes. SVG is not (it would be rendered, with whatever it references). */
export const TRANSFORMABLE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
]);

const FORMAT_OF_TYPE: Readonly<Record<string, TransformFormat>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
};
export const TYPE_OF_FORMAT: Readonly<Record<TransformFormat, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** The output format of a transform of a `sourceType` file: the one asked for, else JPEG for a video's frame, else the source's own, else PNG. */
export function outputFormat(transform: ImageTransform, sourceType: string): TransformFormat {
  return transform.format ?? (transform.frameMs !== undefined ? 'jpeg' : (FORMAT_OF_TYPE[sourceType] ?? 'png'));
}

export interface TransformLimits {
  /** Sources with more pixels (per frame) are refused before they are decoded. */
  readonly maxPixels: number;
}

/**
 * Resizes and converts an image with sharp: EXIF orientation applied, metadata
 * stripped (sharp keeps none unless told), never enlarged past the source, the
 * first frame only (none of our output formats is asked to animate). A source
 * sharp cannot decode (truncated, not what its type says) is `invalid_argument`.
 * `source` is the image's bytes or the path of a file holding them (a file
 * libvips cannot read is, to it, an image it cannot decode).
 */
export async function transformImage(
  source: Buffer | string,
  transform: ImageTransform,
  format: TransformFormat,
  limits: TransformLimits,
): Promise<Buffer> {
  const sharp = await loadSharp();
  if (sharp === undefined)
    throw new SwitchyardError('unavailable', 'image transformations need the optional dependency sharp, which is not installed');
  try {
    let pipeline = sharp(source, { limitInputPixels: limits.maxPixels, failOn: 'error', animated: false, sequentialRead: true }).rotate();
    // A poster frame may be asked for at its own size.
    if (transform.width !== undefined || transform.height !== undefined)
      pipeline = pipeline.resize({ width: transform.width, height: transform.height, fit: transform.fit, withoutEnlargement: true });
    const quality = transform.quality;
    pipeline =
      format === 'jpeg'
        ? pipeline.jpeg({ quality: quality ?? 80, mozjpeg: true })
        : format === 'png'
          ? pipeline.png({ compressionLevel: 6 })
          : format === 'webp'
            ? pipeline.webp({ quality: quality ?? 80 })
            : pipeline.avif({ quality: quality ?? 50, effort: 2 });
    return await pipeline.toBuffer();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) throw tooManyPixels(limits.maxPixels);
    throw new SwitchyardError(
      'invalid_argument',
      'the image could not be decoded for a transformation',
      [{ field: 'file', reason: 'not a decodable image' }],
      { cause: error },
    );
  }
}

export function tooManyPixels(maxPixels: number): SwitchyardError {
  return new SwitchyardError(
    'invalid_argument',
    `the source image has more than ${maxPixels} pixels (TRANSFORM_MAX_PIXELS); it is not transformed`,
    [{ field: 'file', reason: `more than ${maxPixels} pixels` }],
  );
}
