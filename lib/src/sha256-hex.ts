import * as crypto from 'node:crypto';

/** Node's one-shot hash (20.12 and later), about twice as fast as a Hash object for a short string. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** The SHA-256 of a short string (its UTF-8 bytes), hex: what key digests and route shape columns store. */
export function sha256Hex(text: string): string {
  return oneShotHash ? oneShotHash('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}
