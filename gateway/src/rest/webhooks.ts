import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { z } from 'zod';
import { contextOf } from '../app/request-context.js';
import { errorResponses } from '../openapi/responses.js';
import type { ServiceClients } from '../service/clients.js';
import { PageQuerySchema } from './schemas.js';
import {
  CreateWebhookBodySchema,
  DeliveryPageSchema,
  DeliveryParams,
  DeliverySchema,
  deliveryView,
  RecoverAnswerSchema,
  RecoverBodySchema,
  UpdateWebhookBodySchema,
  WebhookIdParams,
  WebhookListSchema,
  WebhookSchema,
  WebhookSecretSchema,
  webhookView,
  WebhookWithSecretSchema,
} from './webhook-schemas.js';

export interface WebhooksDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
}

const TAGS = ['webhooks'];
const DeliveriesQuerySchema = PageQuerySchema.extend({
  status: z.enum(['pending', 'succeeded', 'failed']).optional().meta({ description: 'Only deliveries in this state.' }),
});

/** Webhook endpoints and their delivery log (scope workspace:admin). */
export const webhookRoutes: FastifyPluginAsyncZod<WebhooksDeps> = async (app, { clients, log }) => {
  const call = (request: Parameters<typeof contextOf>[0], reply: Parameters<typeof contextOf>[1]) =>
    contextOf(request, reply, log).callOptions();

  app.post(
    '/v1/webhooks',
    {
      schema: {
        tags: TAGS,
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint (scope workspace:admin)',
        description:
          'The answer holds the signing secret, shown only here and on rotate: store it now. 400 for a URL that is not http(s), carries credentials or names a non-public address, and for an unknown event type.',
        body: CreateWebhookBodySchema,
        response: { 201: WebhookWithSecretSchema.describe('Created, with its secret.'), ...errorResponses(400, 413, 429) },
      },
    },
    async (request, reply) => {
      const { url, events, description } = request.body;
      const created = await clients.webhooks.createWebhook({ url, events, description: description ?? '' }, call(request, reply));
      const view = { ...webhookView(created.webhook), secret: created.secret };
      return reply
        .code(201)
        .header('location', `/v1/webhooks/${encodeURIComponent(view.id)}`)
        .header('cache-control', 'no-store')
        .send(view);
    },
  );

  app.get(
    '/v1/webhooks',
    {
      schema: {
        tags: TAGS,
        operationId: 'listWebhooks',
        summary: "List the workspace's webhook endpoints, oldest first (scope workspace:admin)",
        description: 'Never their secrets.',
        response: { 200: WebhookListSchema.describe('The endpoints.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => ({ webhooks: (await clients.webhooks.listWebhooks({}, call(request, reply))).webhooks.map(webhookView) }),
  );

  app.get(
    '/v1/webhooks/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint, without its secret (scope workspace:admin)',
        params: WebhookIdParams,
        response: { 200: WebhookSchema.describe('The endpoint.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => webhookView(await clients.webhooks.getWebhook({ id: request.params.id }, call(request, reply))),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint (scope workspace:admin)',
        description: 'Any of `url`, `events`, `description`, `enabled`. Disabling fails its pending deliveries (kept, recoverable).',
        params: WebhookIdParams,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookSchema.describe('The endpoint as changed.'), ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) => {
      const { url, events, description, enabled } = request.body;
      return webhookView(
        await clients.webhooks.updateWebhook(
          { id: request.params.id, url, events: events ?? [], setEvents: events !== undefined, description, enabled },
          call(request, reply),
        ),
      );
    },
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log (scope workspace:admin)',
        params: WebhookIdParams,
        response: { 204: z.undefined().describe('Deleted.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.webhooks.deleteWebhook({ id: request.params.id }, call(request, reply));
      return reply.code(204).send();
    },
  );

  // `:rotateSecret`, `:test` and `:recover` are custom methods in the style of Google's AIP-136.
  app.post(
    '/v1/webhooks/:id(^[^:/]+)::rotateSecret',
    {
      schema: {
        tags: TAGS,
        operationId: 'rotateWebhookSecret',
        summary: 'Give a webhook endpoint a new signing secret (scope workspace:admin)',
        description:
          'The answer holds the new secret, shown only here. The old one keeps signing beside it (two `v1,` signatures) for 24 h.',
        params: WebhookIdParams,
        response: { 200: WebhookSecretSchema.describe('The new secret.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { secret } = await clients.webhooks.rotateWebhookSecret({ id: request.params.id }, call(request, reply));
      return reply.header('cache-control', 'no-store').send({ secret });
    },
  );

  app.post(
    '/v1/webhooks/:id(^[^:/]+)::test',
    {
      schema: {
        tags: TAGS,
        operationId: 'testWebhook',
        summary: 'Send a webhook.test event to the endpoint (scope workspace:admin)',
        params: WebhookIdParams,
        response: { 202: DeliverySchema.describe('Queued: the delivery.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(deliveryView(await clients.webhooks.testWebhook({ id: request.params.id }, call(request, reply)))),
  );

  app.post(
    '/v1/webhooks/:id(^[^:/]+)::recover',
    {
      schema: {
        tags: TAGS,
        operationId: 'recoverDeliveries',
        summary: 'Queue again every failed delivery since a time (scope workspace:admin)',
        params: WebhookIdParams,
        body: RecoverBodySchema,
        response: { 202: RecoverAnswerSchema.describe('How many were queued.'), ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) => {
      const answer = await clients.webhooks.recoverDeliveries(
        { id: request.params.id, since: timestampFromDate(new Date(request.body.since)) },
        call(request, reply),
      );
      return reply.code(202).send({ queued: answer.queued });
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags: TAGS,
        operationId: 'listDeliveries',
        summary: "List an endpoint's deliveries, newest first, with their attempts (scope workspace:admin)",
        params: WebhookIdParams,
        querystring: DeliveriesQuerySchema,
        response: { 200: DeliveryPageSchema.describe('A page.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const page = await clients.webhooks.listDeliveries(
        {
          id: request.params.id,
          status: request.query.status ?? '',
          pageSize: request.query.pageSize ?? 0,
          pageToken: request.query.pageToken ?? '',
        },
        call(request, reply),
      );
      return { deliveries: page.deliveries.map(deliveryView), nextPageToken: page.nextPageToken };
    },
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:deliveryId(^[^:/]+)::resend',
    {
      schema: {
        tags: TAGS,
        operationId: 'resendDelivery',
        summary: 'Send one delivery again, with the same webhook-id (scope workspace:admin)',
        params: DeliveryParams,
        response: { 202: z.object({}).describe('Queued.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.webhooks.resendDelivery({ id: request.params.id, deliveryId: request.params.deliveryId }, call(request, reply));
      return reply.code(202).send({});
    },
  );
};
