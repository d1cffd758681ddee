import { webpSize } from './webp-size.js';

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

type Sharp = typeof import('sharp')['default'];

let sharpModule: Promise<Sharp | undefined> | undefined;

/**
 * sharp is an optional peer dependency, loaded on first use: an embedder who
 * does not install it gets assets without width and height (WebP aside, whose
 * header is read here), and everything else works the same.
 */
export function loadSharp(): Promise<Sharp | undefined> {
  sharpModule ??= import('sharp').then(
    (module) => module.default,
    () => undefined,
  );
  return sharpModule;
}

/** Types sharp reads dimensions of; other images (e.g. HEIC, ICO) get none. */
const SHARP_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/tiff', 'image/svg+xml']);

/**
 * Width and height of an image from the first bytes of its file, as shown
 * (EXIF orientation applied). The head suffices for the headers of PNG, JPEG,
 * GIF and AVIF; libwebp wants the whole file, so WebP headers are read here.
 * A TIFF whose directory lies beyond the head, or any failure, yields `undefined`.
 */
export async function imageSize(type: string, head: Uint8Array): Promise<ImageSize | undefined> {
  if (!SHARP_TYPES.has(type)) return undefined;
  try {
    const sharp = await loadSharp();
    if (sharp === undefined) return type === 'image/webp' ? webpSize(head) : undefined;
    const metadata = await sharp(head, { failOn: 'none' }).metadata();
    const size = metadata.autoOrient ?? metadata;
    if (isDimension(size.width) && isDimension(size.height)) return { width: size.width, height: size.height };
  } catch {
    // Cut-off or broken headers: fall through.
  }
  return type === 'image/webp' ? webpSize(head) : undefined;
}

function isDimension(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value > 0;
}
