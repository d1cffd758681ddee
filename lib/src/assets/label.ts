import { invalidArgument } from '../errors.js';

export const MAX_LABEL_LENGTH = 200;

/** Control characters (C0, DEL, C1) and lone surrogates, which no store or UI handles well. */
const FORBIDDEN = /[\p{Cc}\p{Cs}]/u;

/**
 * A label is optional free text of at most 200 characters (code points)
 * without control characters; absent means the empty string. Kept as given.
 */
export function validateLabel(label: unknown): string {
  if (label === undefined) return '';
  if (typeof label !== 'string') throw invalidArgument('label', 'must be a string');
  if ([...label].length > MAX_LABEL_LENGTH) throw invalidArgument('label', `must be at most ${MAX_LABEL_LENGTH} characters`);
  if (FORBIDDEN.test(label)) throw invalidArgument('label', 'must not contain control characters or unpaired surrogates');
  return label;
}
