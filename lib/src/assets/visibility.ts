import { invalidArgument } from '../errors.js';

/** Who may read an asset's file: anyone with its url, or only holders of a signed url. */
export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export function isVisibility(value: unknown): value is Visibility {
  return value === 'public' || value === 'private';
}

/** A visibility given by a caller; absent (or empty, proto3's unset) stays `undefined`. */
export function validateVisibility(value: unknown, field = 'visibility'): Visibility | undefined {
  if (value === undefined || value === '') return undefined;
  if (!isVisibility(value)) throw invalidArgument(field, 'must be "public" or "private"');
  return value;
}
