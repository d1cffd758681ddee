import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Delivery, Webhook } from '@switchyard/proto';
import { z } from 'zod';
import { isoTime } from './views.js';

// The JSON shapes of /v1/webhooks (webhook endpoints and their deliveries, workspace:admin).

const time = (description: string) => z.string().meta({ format: 'date-time', description, examples: ['2025-01-31T09:30:00.000Z'] });
const EVENTS_DESCRIPTION =
  'Event types (`asset.created`, `asset.replaced`, `asset.updated`, `asset.deleted`, `route.created`, `route.updated`, `route.deleted`) or patterns (`asset.*`, `route.*`, `*`).';

export const WebhookSchema = z
  .object({
    id: z.string().meta({ pattern: '^wh_[0-9a-hjkmnp-tv-z]{26}$', description: 'Assigned by the service.' }),
    url: z.string().meta({ description: 'Where deliveries are POSTed.' }),
    events: z.array(z.string()).meta({ description: EVENTS_DESCRIPTION }),
    description: z.string(),
    enabled: z.boolean().meta({ description: 'A disabled endpoint is sent nothing; its events are kept as failed deliveries.' }),
    createdAt: time('When the endpoint was created.'),
    updatedAt: time('When it was last changed.'),
  })
  .meta({ id: 'Webhook' });

export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().meta({
    pattern: '^whsec_[A-Za-z0-9+/=]+$',
    description: 'Verify deliveries with it (Standard Webhooks). Shown only here and on rotate.',
  }),
}).meta({ id: 'WebhookWithSecret' });

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookSchema) }).meta({ id: 'WebhookList' });

export const CreateWebhookBodySchema = z
  .strictObject({
    url: z.string().meta({
      description: 'http or https; no credentials; not a loopback, private or link-local address unless WEBHOOK_ALLOWED_NETWORKS lists it.',
      examples: ['https://hooks.example.com/switchyard'],
    }),
    events: z.array(z.string()).meta({ description: EVENTS_DESCRIPTION, examples: [['asset.*', 'route.deleted']] }),
    description: z.string().optional().meta({ description: 'At most 500 characters.' }),
  })
  .meta({ id: 'CreateWebhookBody' });

export const UpdateWebhookBodySchema = z
  .strictObject({
    url: z.string().optional(),
    events: z.array(z.string()).optional().meta({ description: EVENTS_DESCRIPTION }),
    description: z.string().optional(),
    enabled: z.boolean().optional().meta({ description: 'false: disable (pending deliveries fail, kept); true: enable again.' }),
  })
  .meta({ id: 'UpdateWebhookBody' });

export const WebhookSecretSchema = z
  .object({ secret: z.string().meta({ description: 'The new `whsec_…` secret; the old one signs beside it for 24 h.' }) })
  .meta({ id: 'WebhookSecret' });

const AttemptSchema = z
  .object({
    at: time('When the attempt began.'),
    statusCode: z.number().int().meta({ description: 'The HTTP status answered; 0 when there was no answer.' }),
    durationMs: z.number().int(),
    error: z.string().meta({ description: 'Why it failed; empty on success.' }),
    response: z.string().meta({ description: 'The start of the answer, at most 1 KiB.' }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const DeliverySchema = z
  .object({
    id: z.string().meta({ pattern: '^dlv_[0-9a-hjkmnp-tv-z]{26}$' }),
    webhookId: z.string(),
    messageId: z.string().meta({ description: 'The `webhook-id` header of every attempt.' }),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(AttemptSchema),
    nextAttemptAt: time('When the next attempt is due; null once final.').nullable(),
    createdAt: time('When the event happened.'),
  })
  .meta({ id: 'Delivery' });

export const DeliveryPageSchema = z
  .object({
    deliveries: z.array(DeliverySchema),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'DeliveryPage' });

export const RecoverBodySchema = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).meta({ description: 'Failed deliveries of events at or after this time are queued again.' }),
  })
  .meta({ id: 'RecoverDeliveriesBody' });

export const RecoverAnswerSchema = z.object({ queued: z.number().int() }).meta({ id: 'RecoverDeliveriesAnswer' });

export const WebhookIdParams = z.object({
  id: z.string().meta({ description: 'Webhook id (`wh_…`). A malformed id is 400, a well-formed unknown one 404.' }),
});

export const DeliveryParams = WebhookIdParams.extend({
  deliveryId: z.string().meta({ description: 'Delivery id (`dlv_…`).' }),
});

export function webhookView(webhook: Webhook | undefined): z.infer<typeof WebhookSchema> {
  return {
    id: webhook?.id ?? '',
    url: webhook?.url ?? '',
    events: [...(webhook?.events ?? [])],
    description: webhook?.description ?? '',
    enabled: webhook?.enabled ?? false,
    createdAt: isoTime(webhook?.createdAt, 'createdAt'),
    updatedAt: isoTime(webhook?.updatedAt, 'updatedAt'),
  };
}

export function deliveryView(delivery: Delivery): z.infer<typeof DeliverySchema> {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    messageId: delivery.messageId,
    eventType: delivery.eventType,
    status: delivery.status as 'pending' | 'succeeded' | 'failed',
    attempts: delivery.attempts.map((attempt) => ({
      at: isoTime(attempt.at, 'at'),
      statusCode: attempt.statusCode,
      durationMs: Number(attempt.durationMs),
      error: attempt.error,
      response: attempt.response,
    })),
    nextAttemptAt: delivery.nextAttemptAt ? timestampDate(delivery.nextAttemptAt).toISOString() : null,
    createdAt: isoTime(delivery.createdAt, 'createdAt'),
  };
}
