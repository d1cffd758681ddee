import { SwitchyardError } from '../errors.js';

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const MAX_KEY_LENGTH = 512;

/**
 * Refuses keys that could escape a store's root or confuse a file system:
 * no empty, `.` or `..` segments, no absolute paths, no backslashes, no NUL.
 * Every blob store calls this first.
 */
export function assertBlobKey(key: string): string {
  const segments = key.split('/');
  const ok = key.length > 0 && key.length <= MAX_KEY_LENGTH && segments.every((segment) => SEGMENT.test(segment));
  if (!ok) throw new SwitchyardError('invalid_argument', 'invalid blob key', [{ field: 'key', reason: 'not a safe relative key' }]);
  return key;
}
