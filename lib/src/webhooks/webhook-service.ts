import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { invalidArgument, SwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import {
  DELIVERY_STATUSES,
  type DeliveryRecord,
  type DeliveryStatus,
  type WebhookEndpointRecord,
  type WebhookStore,
} from '../ports/webhook-store.js';
import { webhookUrlOf } from './destination.js';
import { eventFiltersOf } from './event-types.js';
import { testEvent } from './webhook-events.js';
import { newWebhookSecret } from './webhook-secret.js';
import type { WebhookSettings } from './webhook-settings.js';
import type { DeliveryView, WebhookEndpoint, WebhookService } from './types.js';

/** After a rotation, the old secret signs beside the new one this long (CONTRACT.md). */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** The longest description kept. */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;
/** Endpoints per workspace: every change of the workspace is matched against all of them in its transaction. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 50;

export interface WebhookServiceParts {
  readonly store: WebhookStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly settings: WebhookSettings;
}

export function createWebhookService(parts: WebhookServiceParts): WebhookService {
  const { store, clock, ids, settings } = parts;

  const endpointOf = async (principal: Principal, id: string): Promise<WebhookEndpointRecord> => {
    requireScope(principal, 'workspace:admin');
    const record = await store.getEndpoint(principal.workspace, assertId('webhook', id));
    if (!record) throw new SwitchyardError('not_found', `webhook ${id} not found`);
    return record;
  };

  return Object.freeze({
    async create(principal, input) {
      requireScope(principal, 'workspace:admin');
      const url = webhookUrlOf(input.url, settings.addresses);
      const events = eventFiltersOf(input.events);
      const description = descriptionOf(input.description ?? '');
      if ((await store.listEndpoints(principal.workspace)).length >= MAX_WEBHOOKS_PER_WORKSPACE)
        throw new SwitchyardError('resource_exhausted', `at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks per workspace`);
      const now = clock.now();
      const secret = newWebhookSecret();
      const record: WebhookEndpointRecord = {
        id: ids.next('webhook'),
        workspace: principal.workspace,
        url,
        events,
        description,
        enabled: true,
        createdAt: now,
        updatedAt: now,
        secret,
        previousSecret: undefined,
        previousSecretUntil: undefined,
        failingSince: undefined,
      };
      await store.insertEndpoint(record);
      return Object.freeze({ ...toEndpoint(record), secret });
    },

    async list(principal) {
      requireScope(principal, 'workspace:admin');
      return Object.freeze((await store.listEndpoints(principal.workspace)).map(toEndpoint));
    },

    async get(principal, id) {
      return toEndpoint(await endpointOf(principal, id));
    },

    async update(principal, id, input) {
      await endpointOf(principal, id);
      const url = input.url === undefined ? undefined : webhookUrlOf(input.url, settings.addresses);
      const events = input.events === undefined ? undefined : eventFiltersOf(input.events);
      const description = input.description === undefined ? undefined : descriptionOf(input.description);
      if (input.enabled !== undefined && typeof input.enabled !== 'boolean') throw invalidArgument('enabled', 'must be true or false');
      const enabled = input.enabled;
      const changes = {
        updatedAt: clock.now(),
        ...(url !== undefined && { url }),
        ...(events !== undefined && { events }),
        ...(description !== undefined && { description }),
        // Enabling again starts a fresh run: the 5-day count restarts.
        ...(enabled !== undefined && { enabled, ...(enabled && { failingSince: undefined }) }),
      };
      const record = await store.updateEndpoint(principal.workspace, id, changes);
      if (!record) throw new SwitchyardError('not_found', `webhook ${id} not found`);
      return toEndpoint(record);
    },

    async delete(principal, id) {
      await endpointOf(principal, id);
      await store.deleteEndpoint(principal.workspace, id);
    },

    async rotateSecret(principal, id) {
      const current = await endpointOf(principal, id);
      const now = clock.now();
      const secret = newWebhookSecret();
      const record = await store.updateEndpoint(principal.workspace, id, {
        secret,
        previousSecret: current.secret,
        previousSecretUntil: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        updatedAt: now,
      });
      if (!record) throw new SwitchyardError('not_found', `webhook ${id} not found`);
      return Object.freeze({ secret });
    },

    async test(principal, id) {
      const endpoint = await endpointOf(principal, id);
      return toDelivery(await store.addDelivery(endpoint, testEvent(principal.workspace, endpoint.id, clock.now())));
    },

    async listDeliveries(principal, id, input = {}) {
      await endpointOf(principal, id);
      const status = statusOf(input.status);
      const limit = pageSizeOf(input.pageSize);
      const binding = bindingOf('deliveries', principal.workspace, id, status ?? '');
      const before = input.pageToken ? decodePageToken(input.pageToken, binding, 1)[0] : undefined;
      const records = await store.listDeliveries(principal.workspace, id, { status, before, limit: limit + 1 });
      const page = records.slice(0, limit);
      const last = page.at(-1);
      return Object.freeze({
        deliveries: Object.freeze(page.map(toDelivery)),
        nextPageToken: records.length > limit && last ? encodePageToken([last.id], binding) : '',
      });
    },

    async resend(principal, id, deliveryId) {
      await endpointOf(principal, id);
      const found = await store.requeue(principal.workspace, id, assertId('delivery', deliveryId, 'deliveryId'), clock.now());
      if (!found) throw new SwitchyardError('not_found', `delivery ${deliveryId} not found`);
    },

    async recover(principal, id, since) {
      await endpointOf(principal, id);
      const from = sinceOf(since, clock.now());
      return Object.freeze({ queued: await store.recover(principal.workspace, id, from, clock.now()) });
    },
  } satisfies WebhookService);
}

export function toEndpoint(record: WebhookEndpointRecord): WebhookEndpoint {
  return Object.freeze({
    id: record.id,
    url: record.url,
    events: Object.freeze([...record.events]),
    description: record.description,
    enabled: record.enabled,
    createdAt: new Date(record.createdAt.getTime()),
    updatedAt: new Date(record.updatedAt.getTime()),
  });
}

export function toDelivery(record: DeliveryRecord): DeliveryView {
  return Object.freeze({
    id: record.id,
    webhookId: record.webhookId,
    messageId: record.message.id,
    eventType: record.message.type,
    status: record.status,
    createdAt: record.message.createdAt,
    attempts: Object.freeze(record.attempts.map((attempt) => Object.freeze({ ...attempt }))),
    nextAttemptAt: record.nextAttemptAt,
  });
}

function descriptionOf(input: unknown): string {
  if (typeof input !== 'string') throw invalidArgument('description', 'must be text');
  if (input.length > MAX_WEBHOOK_DESCRIPTION_LENGTH)
    throw invalidArgument('description', `at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`);
  return input;
}

function statusOf(input: string | undefined): DeliveryStatus | undefined {
  if (input === undefined || input === '') return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(input)) throw invalidArgument('status', `one of ${DELIVERY_STATUSES.join(', ')}`);
  return input as DeliveryStatus;
}

/** `since` as an RFC 3339 time, not in the future. */
function sinceOf(input: unknown, now: Date): Date {
  const time = typeof input === 'string' && input !== '' ? new Date(input) : input instanceof Date ? input : undefined;
  if (time === undefined || Number.isNaN(time.getTime()))
    throw invalidArgument('since', 'an RFC 3339 time such as 2026-01-31T12:00:00Z is required');
  if (time > now) throw invalidArgument('since', 'is in the future');
  return time;
}
