import { Readable } from 'node:stream';
import { SwitchyardError, assertBlobKey, type ByteRange } from '@switchyard/core';

/** Refuses ranges no HTTP `Range` header could mean: negative, fractional or reversed. */
export function assertRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new SwitchyardError('invalid_argument', 'invalid byte range', [{ field: 'range', reason: 'expected 0 <= start <= end' }]);
  }
}

/** What a range wholly past the end of a blob reads: no bytes. */
export function emptyStream(): Readable {
  return Readable.from([], { objectMode: false });
}

/** Whether a name found in storage could have been written by a store (others are skipped by `list`). */
export function isValidBlobKey(key: string): boolean {
  try {
    assertBlobKey(key);
    return true;
  } catch {
    return false;
  }
}
