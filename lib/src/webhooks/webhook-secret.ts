import { randomBytes } from 'node:crypto';
import { SwitchyardError } from '../errors.js';

/** Standard Webhooks' secret prefix: `whsec_` then the key in base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** 24 random bytes, as Svix makes them (a 192-bit HMAC key). */
const SECRET_BYTES = 24;

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key a `whsec_` secret stands for. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new SwitchyardError('internal', 'a stored webhook secret lacks its whsec_ prefix');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}
