import { invalidArgument } from '../errors.js';
import { assertId } from '../ids.js';
import { validateLabel } from '../assets/label.js';
import { validateVisibility } from '../assets/visibility.js';
import { cleanName } from '../assets/asset-name.js';
import type { UploadIntent } from '../ports/upload-store.js';
import type { UploadIntentInput } from './types.js';

/** Validates what a client said about its upload, before any byte is taken. */
export function validateIntent(input: UploadIntentInput | undefined): UploadIntent {
  if (input === undefined) return Object.freeze({});
  if (typeof input !== 'object' || input === null) throw invalidArgument('metadata', 'must be an object');
  // Cleaned and cut now, as the asset's name will be: the upload keeps only what can become that name.
  const filename = cleanName(input.filename);
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
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
    throw invalidArgument(field, 'must be a non-negative integer');
  return length;
}
