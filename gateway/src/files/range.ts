/** What a Range header asks for, before the file's size is known. */
export type RangeRequest =
  | { readonly kind: 'whole' }
  | { readonly kind: 'from'; readonly start: number; readonly end: number | undefined }
  | { readonly kind: 'suffix'; readonly length: number };

export type ResolvedRange = { readonly start: number; readonly end: number } | 'whole' | 'unsatisfiable';

const SINGLE_RANGE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * Parses a Range header (RFC 9110 §14.2). Only a single byte range is served;
 * several ranges are answered with the whole file (which the RFC allows), as
 * multipart/byteranges buys little for immutable files and costs a lot when
 * abused with many overlapping ranges. A header that is not a valid single
 * byte range is ignored, as the RFC requires.
 */
export function parseRange(header: string | undefined): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE_RANGE.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') return { kind: 'suffix', length: toNumber(last) };
  const start = toNumber(first);
  const end = last === '' ? undefined : toNumber(last);
  if (end !== undefined && end < start) return { kind: 'whole' };
  return { kind: 'from', start, end };
}

/** The inclusive byte range to send from a file of `size` bytes. */
export function resolveRange(range: RangeRequest, size: number): ResolvedRange {
  switch (range.kind) {
    case 'whole':
      return 'whole';
    case 'from':
      if (range.start >= size) return 'unsatisfiable';
      return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
    case 'suffix':
      // A non-zero suffix is satisfiable whatever the size (RFC 9110 §14.1.1); on an empty
      // file it selects the whole, empty representation, which no Content-Range can name.
      if (range.length === 0) return 'unsatisfiable';
      if (size === 0) return 'whole';
      return { start: Math.max(0, size - range.length), end: size - 1 };
  }
}

/** Digits beyond what a file can have saturate instead of losing precision. */
function toNumber(digits: string): number {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER;
}
