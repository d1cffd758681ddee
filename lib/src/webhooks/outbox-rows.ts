import type { IdSource } from '../ids.js';
import type { DeliveryRecord, WebhookEndpointRecord, WebhookEventDraft, WebhookMessage } from '../ports/webhook-store.js';
import { matchesEvent } from './event-types.js';
import { eventBody } from './webhook-events.js';

/** What the outbox writes for a change: each event heard by some endpoint, once, and a delivery per (event, endpoint). */
export interface OutboxRows {
  readonly messages: readonly WebhookMessage[];
  readonly deliveries: readonly DeliveryRecord[];
}

/**
 * The rows for `drafts` given the workspace's endpoints, in the drafts'
 * order. Events nobody hears write nothing. A disabled endpoint's delivery
 * is written `failed` (kept, recoverable), not dropped.
 */
export function outboxRows(
  workspace: string,
  endpoints: readonly WebhookEndpointRecord[],
  drafts: readonly WebhookEventDraft[],
  ids: IdSource,
): OutboxRows {
  const messages: WebhookMessage[] = [];
  const deliveries: DeliveryRecord[] = [];
  for (const draft of drafts) {
    const hearing = endpoints.filter((endpoint) => matchesEvent(endpoint.events, draft.type));
    if (hearing.length === 0) continue;
    const message = messageOf(workspace, draft, ids);
    messages.push(message);
    for (const endpoint of hearing) deliveries.push(newDelivery(endpoint, message, ids));
  }
  return { messages, deliveries };
}

export function messageOf(workspace: string, draft: WebhookEventDraft, ids: IdSource): WebhookMessage {
  return Object.freeze({ id: ids.next('message'), workspace, type: draft.type, body: eventBody(draft), createdAt: draft.time });
}

export function newDelivery(endpoint: WebhookEndpointRecord, message: WebhookMessage, ids: IdSource): DeliveryRecord {
  return Object.freeze({
    id: ids.next('delivery'),
    workspace: endpoint.workspace,
    webhookId: endpoint.id,
    message,
    status: endpoint.enabled ? 'pending' : 'failed',
    tries: 0,
    nextAttemptAt: endpoint.enabled ? message.createdAt : undefined,
    attempts: Object.freeze([]),
  });
}
