import { invalidArgument, SwitchyardError } from '../errors.js';

/** Refuses an offset for `BlobStore.writeAt` that is no byte position at all. */
export function assertBlobOffset(offset: number): number {
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidArgument('offset', 'must be a non-negative integer');
  return offset;
}

/** What `BlobStore.writeAt` answers for an offset past the end of the blob (or for no blob, at an offset above 0). */
export function blobTooShort(key: string, offset: number): SwitchyardError {
  return new SwitchyardError('out_of_range', `blob ${key} has fewer than ${offset} bytes to write after`, [
    { field: 'offset', reason: 'past the end of the blob' },
  ]);
}
