import type { WebhookEventDraft } from '../ports/webhook-store.js';

/** Where the memory stores write the webhook events of a change, in the same synchronous step as the change (MemoryWebhookStore). */
export interface MemoryOutbox {
  enqueue(workspace: string, drafts: readonly WebhookEventDraft[]): void;
}
