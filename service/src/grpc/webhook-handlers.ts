import { SwitchyardError, type DeliveryView, type WebhookEndpoint, type WebhookService } from '@switchyard/core';
import type {
  CreateWebhookRequest,
  CreateWebhookResponse,
  DeleteWebhookRequest,
  DeleteWebhookResponse,
  Delivery,
  GetWebhookRequest,
  ListDeliveriesRequest,
  ListDeliveriesResponse,
  ListWebhooksRequest,
  ListWebhooksResponse,
  RecoverDeliveriesRequest,
  RecoverDeliveriesResponse,
  ResendDeliveryRequest,
  ResendDeliveryResponse,
  RotateWebhookSecretRequest,
  RotateWebhookSecretResponse,
  TestWebhookRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookServiceServer,
} from '../gen/switchyard/v1/webhooks.js';
import type { Rpc } from './rpc.js';

/** WebhookService over the core's webhooks; without a webhook store every call is `unimplemented`. */
export function webhookHandlers(webhooks: WebhookService | undefined, rpc: Rpc): WebhookServiceServer {
  const service = (): WebhookService => {
    if (webhooks === undefined) throw new SwitchyardError('unimplemented', 'this service keeps no webhooks');
    return webhooks;
  };
  return {
    createWebhook: rpc.unary<CreateWebhookRequest, CreateWebhookResponse>('CreateWebhook', async (request, { principal }) => {
      const created = await service().create(principal, { url: request.url, events: request.events, description: request.description });
      return { webhook: webhookToMessage(created), secret: created.secret };
    }),
    listWebhooks: rpc.unary<ListWebhooksRequest, ListWebhooksResponse>('ListWebhooks', async (_request, { principal }) => ({
      webhooks: (await service().list(principal)).map(webhookToMessage),
    })),
    getWebhook: rpc.unary<GetWebhookRequest, Webhook>('GetWebhook', async (request, { principal }) =>
      webhookToMessage(await service().get(principal, request.id)),
    ),
    updateWebhook: rpc.unary<UpdateWebhookRequest, Webhook>('UpdateWebhook', async (request, { principal }) =>
      webhookToMessage(
        await service().update(principal, request.id, {
          url: request.url,
          events: request.setEvents ? request.events : undefined,
          description: request.description,
          enabled: request.enabled,
        }),
      ),
    ),
    deleteWebhook: rpc.unary<DeleteWebhookRequest, DeleteWebhookResponse>('DeleteWebhook', async (request, { principal }) => {
      await service().delete(principal, request.id);
      return {};
    }),
    rotateWebhookSecret: rpc.unary<RotateWebhookSecretRequest, RotateWebhookSecretResponse>(
      'RotateWebhookSecret',
      async (request, { principal }) => ({ secret: (await service().rotateSecret(principal, request.id)).secret }),
    ),
    testWebhook: rpc.unary<TestWebhookRequest, Delivery>('TestWebhook', async (request, { principal }) =>
      deliveryToMessage(await service().test(principal, request.id)),
    ),
    listDeliveries: rpc.unary<ListDeliveriesRequest, ListDeliveriesResponse>('ListDeliveries', async (request, { principal }) => {
      const page = await service().listDeliveries(principal, request.id, {
        status: request.status,
        pageSize: request.pageSize,
        pageToken: request.pageToken,
      });
      return { deliveries: page.deliveries.map(deliveryToMessage), nextPageToken: page.nextPageToken };
    }),
    resendDelivery: rpc.unary<ResendDeliveryRequest, ResendDeliveryResponse>('ResendDelivery', async (request, { principal }) => {
      await service().resend(principal, request.id, request.deliveryId);
      return {};
    }),
    recoverDeliveries: rpc.unary<RecoverDeliveriesRequest, RecoverDeliveriesResponse>('RecoverDeliveries', async (request, { principal }) =>
      // An unset `since` is refused by the core as missing.
      service().recover(principal, request.id, request.since),
    ),
  };
}

export function webhookToMessage(webhook: WebhookEndpoint): Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    description: webhook.description,
    enabled: webhook.enabled,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

export function deliveryToMessage(delivery: DeliveryView): Delivery {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    messageId: delivery.messageId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts.map((attempt) => ({ ...attempt })),
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
  };
}
