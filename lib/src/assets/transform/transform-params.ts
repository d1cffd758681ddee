import { invalidArgument } from '../../errors.js';

/** Output formats a transform may ask for; `auto` is resolved from `Accept` before the core sees it. */
export const TRANSFORM_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type TransformFormat = (typeof TRANSFORM_FORMATS)[number];
export const TRANSFORM_FITS = ['cover', 'contain', 'inside', 'fill'] as const;
export type TransformFit = (typeof TRANSFORM_FITS)[number];

/** Widths and heights a transform may ask for (TRANSFORM_SIZES): a fixed list, so variants cannot be multiplied at will. */
export const DEFAULT_TRANSFORM_SIZES: readonly number[] = Object.freeze([
  16, 32, 48, 64, 96, 128, 256, 384, 512, 640, 750, 828, 1080, 1200, 1920, 2048, 3840,
]);

/** The latest poster frame a url may ask for (ms): a day of video. */
export const MAX_FRAME_MS = 86_400_000;

/** A validated transform: at least one of width and height (or a video's frame), a fit, and the output (its format resolved). */
export interface ImageTransform {
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  readonly fit: TransformFit;
  /** `undefined`: the source's own format (when it is one of TRANSFORM_FORMATS, else PNG). */
  readonly format?: TransformFormat | undefined;
  /** 1-100; default per format. */
  readonly quality?: number | undefined;
  /** A video's poster: the frame at this many milliseconds (`?frame` alone: 0, the first). */
  readonly frameMs?: number | undefined;
}

/** The transform query parameters as they arrive (strings), absent ones undefined. */
export interface TransformQuery {
  readonly w?: string | undefined;
  readonly h?: string | undefined;
  readonly fit?: string | undefined;
  readonly format?: string | undefined;
  readonly q?: string | undefined;
  /** `""` (present without a value) or whole milliseconds. */
  readonly frame?: string | undefined;
}

export const TRANSFORM_PARAMS = ['w', 'h', 'fit', 'format', 'q', 'frame'] as const;

/** Whether a url's query asks for a transform at all. */
export function hasTransform(query: TransformQuery): boolean {
  return TRANSFORM_PARAMS.some((name) => query[name] !== undefined);
}

/**
 * Validates transform parameters: `w` and `h` from `sizes`, `fit` one of
 * TRANSFORM_FITS (default inside), `format` one of TRANSFORM_FORMATS (`auto`
 * must be resolved by the caller first), `q` 1-100. Every bad parameter is
 * named in one `invalid_argument`.
 */
export function parseTransform(query: TransformQuery, sizes: readonly number[]): ImageTransform {
  const size = (name: 'w' | 'h'): number | undefined => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    const value = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
    if (!sizes.includes(value)) throw invalidArgument(name, `must be one of ${sizes.join(', ')}`);
    return value;
  };
  const width = size('w');
  const height = size('h');
  const frameMs = parseFrame(query.frame);
  if (width === undefined && height === undefined && frameMs === undefined) throw invalidArgument('w', 'a transform needs w, h or both');
  const fit = query.fit ?? 'inside';
  if (!(TRANSFORM_FITS as readonly string[]).includes(fit)) throw invalidArgument('fit', `must be one of ${TRANSFORM_FITS.join(', ')}`);
  const format = query.format;
  if (format !== undefined && !(TRANSFORM_FORMATS as readonly string[]).includes(format))
    throw invalidArgument('format', `must be one of ${TRANSFORM_FORMATS.join(', ')}, or auto`);
  let quality: number | undefined;
  if (query.q !== undefined) {
    quality = /^\d{1,3}$/.test(query.q) ? Number(query.q) : NaN;
    if (!(quality >= 1 && quality <= 100)) throw invalidArgument('q', 'must be a whole number from 1 to 100');
  }
  return Object.freeze({
    width,
    height,
    fit: fit as TransformFit,
    format: format as TransformFormat | undefined,
    quality,
    ...(frameMs === undefined ? {} : { frameMs }),
  });
}

/** `frame`: absent, `""` (the first frame), or whole milliseconds up to MAX_FRAME_MS. */
function parseFrame(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (raw === '') return 0;
  const ms = /^\d{1,8}$/.test(raw) ? Number(raw) : NaN;
  if (!(ms <= MAX_FRAME_MS))
    throw invalidArgument('frame', `must be a whole number of milliseconds from 0 to ${MAX_FRAME_MS}, or empty for the first frame`);
  return ms;
}

/** A stable text of a transform and its output format, for the variant's key and ETag. */
export function canonicalTransform(transform: ImageTransform, format: TransformFormat): string {
  const frame = transform.frameMs === undefined ? '' : `f${transform.frameMs}-`;
  return `${frame}w${transform.width ?? ''}-h${transform.height ?? ''}-${transform.fit}-q${transform.quality ?? ''}.${format}`;
}
