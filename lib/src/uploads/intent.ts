import { invalidArgument } from '../errors.js';
import { assertId } from '../ids.js';
import { validateLabel } from '../assets/label.js';
import { validateVisibility } from '../assets/visibility.js';
import type { UploadIntent } from '../ports/upload-store.js';
import type { UploadIntentInput } from './types.js';

const MAX_FILENAME_LENGTH = 1024;

/** Validates what a client said about its upload, before any byte is taken. */
export function validateIntent(input: UploadIntentInput | undefined): UploadIntent {
  if (input === undefined) return Object.freeze({});
  if (typeof input !== 'object' || input === null) throw invalidArgument('metadata', 'must be an object');
  const { filename } = input;
  if (filename !== undefined && (typeof filename !== 'string' || filename.length > MAX_FILENAME_LENGTH)) {
    throw invalidArgument('filename', `must be a string of at most ${MAX_FILENAME_LENGTH} characters`);
  }
  const label = input.label === undefined || input.label === '' ? undefined : validateLabel(input.label);
  const visibility = validateVisibility(input.visibility);
  const replace = input.replace === undefined || input.replace === '' ? undefined : assertId('asset', input.replace, 'replace');
  return Object.freeze({
    ...(filename ? { filename } : {}),
    ...(label !== undefined ? { label } : {}),
    ...(visibility !== undefined ? { visibility } : {}),
    ...(replace !== undefined ? { replace } : {}),
  });
}

/** A total size a client declared: a non-negative safe integer. */
export function validateLength(length: unknown, field = 'length'): number {
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw invalidArgument(field, 'must be a non-negative integer');
  return length;
}
