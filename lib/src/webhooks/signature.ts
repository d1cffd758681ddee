import { createHmac } from 'node:crypto';
import { webhookSecretKey } from './webhook-secret.js';

/** The Standard Webhooks 1.0 headers of one attempt. */
export interface WebhookSignatureHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Signs `body` per Standard Webhooks 1.0: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under each secret, space separated (two during a
 * rotation, the newest first). `timestamp` is in seconds.
 */
export function signWebhook(id: string, timestamp: number, body: string, secrets: readonly string[]): WebhookSignatureHeaders {
  const content = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', webhookSecretKey(secret)).update(content).digest('base64')}`);
  return Object.freeze({ 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') });
}
