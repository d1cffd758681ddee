import type { Readable } from 'node:stream';
import { loadSharp } from '../image-size.js';

/** ThumbHash works on at most 100 × 100 pixels. */
const THUMB_SIDE = 100;

type ThumbHash = typeof import('thumbhash');
let thumbhashModule: Promise<ThumbHash | undefined> | undefined;

/** thumbhash is an optional peer dependency, like sharp: without either, images get no placeholder. */
function loadThumbHash(): Promise<ThumbHash | undefined> {
  thumbhashModule ??= import('thumbhash').then(
    (module) => module,
    () => undefined,
  );
  return thumbhashModule;
}

export interface PlaceholderLimits {
  readonly maxPixels: number;
  readonly timeoutMs: number;
}

/**
 * A ThumbHash of an image (base64, about 30 characters): sharp shrinks it to
 * at most 100 × 100 as shown (orientation applied, JPEGs shrunk while they
 * are decoded), and thumbhash encodes the pixels with their aspect ratio and
 * alpha. `source` is the file's path or its bytes as a stream. Undefined
 * when it cannot be decoded within the limits.
 */
export async function imagePlaceholder(source: string | Readable, limits: PlaceholderLimits): Promise<string | undefined> {
  const [sharp, thumbhash] = await Promise.all([loadSharp(), loadThumbHash()]);
  if (sharp === undefined || thumbhash === undefined) return undefined;
  const options = { limitInputPixels: limits.maxPixels, failOn: 'none', animated: false, sequentialRead: true } as const;
  // From a path libvips reads the file itself; a stream is piped in.
  const pipeline = (typeof source === 'string' ? sharp(source, options) : sharp(options))
    .timeout({ seconds: Math.max(1, Math.ceil(limits.timeoutMs / 1000)) })
    .rotate()
    .resize(THUMB_SIDE, THUMB_SIDE, { fit: 'inside' })
    .ensureAlpha()
    .raw();
  try {
    if (typeof source !== 'string') source.on('error', (error) => pipeline.destroy(error)).pipe(pipeline);
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return Buffer.from(thumbhash.rgbaToThumbHash(info.width, info.height, data)).toString('base64');
  } catch {
    return undefined;
  } finally {
    if (typeof source !== 'string') source.destroy();
  }
}
