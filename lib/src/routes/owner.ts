/**
 * A route's owner: the team or tool that manages it (`payments`,
 * `team-payments`, `terraform`, `github-actions/deploy`, `ops@example.com`).
 * An apply with an owner plans only that owner's routes, so the name is a key
 * a pipeline repeats on every run: plain, case-sensitive, never trimmed.
 *
 *   owner = "" | [A-Za-z0-9] *( [A-Za-z0-9._:@/-] )    at most 64 characters
 *
 * Missing or `null` is `""` (no owner).
 */
import { invalidArgument } from '../errors.js';

export const MAX_OWNER_LENGTH = 64;
const OWNER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;

export function parseOwner(value: unknown, field = 'owner'): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidArgument(field, 'must be a string');
  if (value === '') return '';
  if (value.length > MAX_OWNER_LENGTH) throw invalidArgument(field, `must be at most ${MAX_OWNER_LENGTH} characters`);
  if (!OWNER_PATTERN.test(value))
    throw invalidArgument(field, 'must start with a letter or digit and hold only letters, digits and . _ : @ / - (e.g. team-payments)');
  return value;
}
