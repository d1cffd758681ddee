import type { Transaction } from 'kysely';
import type { WebhookEventDraft } from '@switchyard/core';
import type { Database } from './schema.js';

/**
 * Where the asset and route stores write a change's webhook events, inside the
 * change's transaction (KyselyWebhookStore). The events are made only when an
 * endpoint of the workspace may hear them: a 5,000-route apply in a workspace
 * without webhooks builds none.
 */
export interface KyselyOutbox {
  enqueue(trx: Transaction<Database>, workspace: string, drafts: () => readonly WebhookEventDraft[]): Promise<void>;
}
