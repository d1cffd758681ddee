import { parse } from 'range-parser';

/** The inclusive byte range to send, the whole file, or 416. */
export type ByteRange = { readonly start: number; readonly end: number } | 'whole' | 'unsatisfiable';

/** range-parser's result codes. */
const MALFORMED = 1;
const UNSATISFIABLE = 2;

/**
 * Reads a Range header against a file of `size` bytes (RFC 9110 §14.2, by
 * range-parser). Only a single byte range is served; several ranges are
 * answered with the whole file (which the RFC allows), as
 * multipart/byteranges buys little for immutable files and costs a lot when
 * abused with many overlapping ranges. A header that is not a valid byte
 * range is ignored, as the RFC requires; a suffix range of an empty file
 * selects all of it (nothing), which no Content-Range can name: the whole.
 */
export function rangeOf(header: string | undefined, size: number): ByteRange {
  if (header === undefined) return 'whole';
  const result = parse(size, header);
  if (result.type !== 'bytes' || (result.code & MALFORMED) !== 0) return 'whole';
  if ((result.code & UNSATISFIABLE) !== 0) return 'unsatisfiable';
  const [only, ...more] = result.ranges;
  return only === undefined || more.length > 0 ? 'whole' : { start: only.start, end: only.end };
}
