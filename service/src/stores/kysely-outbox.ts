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
  /**
   * `drafts` is called only when the workspace has endpoints (a workspace without webhooks builds no events).
   * Answers whether it wrote deliveries due now: the store then calls `committed` once its transaction has committed.
   */
  enqueue(trx: Transaction<Database>, workspace: string, drafts: () => readonly WebhookEventDraft[]): Promise<boolean>;
  /** Wakes this process's relay for the deliveries just committed (never before the commit: it would find nothing). */
  committed(): void;
}
