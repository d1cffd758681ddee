// WebhookService over real gRPC: the calls, their status codes, and a test event delivered to a
// loopback receiver.
import test from 'ava';
import { credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import {
  WebhookServiceClient,
  type CreateWebhookResponse,
  type Delivery,
  type ListDeliveriesResponse,
  type Webhook,
} from '@switchyard/service/gen/switchyard/v1/webhooks.js';
import { eventually } from '@switchyard/core/testing';
import { acceptedByStandardWebhooks, signedBy, startReceiver } from '../support/webhook-receiver.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

let stack: Stack;
let client: WebhookServiceClient;

test.before(async () => {
  stack = await startStack();
  client = new WebhookServiceClient(stack.service.address, credentials.createInsecure());
});

test.after.always(async () => {
  client?.close();
  await stack?.stop();
});

function metadataOf(token: string | undefined): Metadata {
  const metadata = new Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Calls a unary method of the client; answers its value or its error's code. */
function call<Response = unknown>(
  method: (...args: never[]) => unknown,
  request: object,
  token: string | undefined,
): Promise<{ value?: Response; code: Status }> {
  const invoke = method as unknown as (
    request: object,
    metadata: Metadata,
    callback: (error: ServiceError | null, value?: Response) => void,
  ) => unknown;
  return new Promise((resolve) =>
    invoke.call(client, request, metadataOf(token), (error, value) => resolve(error ? { code: error.code } : { value, code: Status.OK })),
  );
}

test('WebhookService: create, read, update, test and deliveries; refusals with their codes', async (t) => {
  const receiver = await startReceiver();
  try {
    const workspace = freshWorkspace();
    const admin = await stack.token(workspace);
    const created = await call<CreateWebhookResponse>(
      client.createWebhook,
      { url: receiver.url, events: ['route.*'], description: 'grpc' },
      admin,
    );
    t.is(created.code, Status.OK);
    const secret = created.value!.secret;
    const id = created.value!.webhook!.id;
    t.regex(secret, /^whsec_/);
    t.deepEqual(created.value!.webhook!.events, ['route.*']);

    const kept = await call<Webhook>(client.updateWebhook, { id, description: 'changed', events: [], setEvents: false }, admin);
    t.deepEqual([kept.value?.description, kept.value?.events], ['changed', ['route.*']], 'events stay unless set_events');
    t.is((await call(client.updateWebhook, { id, events: [], setEvents: true }, admin)).code, Status.INVALID_ARGUMENT);
    t.is(
      (await call(client.createWebhook, { url: 'http://127.0.0.2/', events: ['*'], description: '' }, admin)).code,
      Status.INVALID_ARGUMENT,
    );
    t.is(
      (await call(client.createWebhook, { url: receiver.url, events: ['asset.exploded'], description: '' }, admin)).code,
      Status.INVALID_ARGUMENT,
    );
    t.is((await call(client.recoverDeliveries, { id }, admin)).code, Status.INVALID_ARGUMENT, 'no since');
    t.is((await call(client.getWebhook, { id: 'wh_00000000000000000000000000' }, admin)).code, Status.NOT_FOUND);
    t.is((await call(client.getWebhook, { id: 'x' }, admin)).code, Status.INVALID_ARGUMENT);
    t.is((await call(client.listWebhooks, {}, undefined)).code, Status.UNAUTHENTICATED);
    t.is((await call(client.listWebhooks, {}, await stack.token(workspace, { scope: 'routes:read' }))).code, Status.PERMISSION_DENIED);
    t.is((await call(client.getWebhook, { id }, await stack.token(freshWorkspace()))).code, Status.NOT_FOUND);

    const queued = await call<Delivery>(client.testWebhook, { id }, admin);
    t.is(queued.value?.eventType, 'webhook.test');
    await eventually(() => receiver.received.length >= 1, { timeout: 30_000, message: 'the test event' });
    t.deepEqual(signedBy(receiver.received[0]!, [secret]), [true]);
    t.true(acceptedByStandardWebhooks(receiver.received[0]!, secret), 'standardwebhooks verifies it');
    const log = await eventually(
      async () => {
        const page = await call<ListDeliveriesResponse>(
          client.listDeliveries,
          { id, status: 'succeeded', pageSize: 0, pageToken: '' },
          admin,
        );
        return page.value?.deliveries.length === 1 && page.value;
      },
      { timeout: 10_000, message: 'recorded as succeeded' },
    );
    t.is(log.deliveries[0]!.messageId, String(receiver.received[0]!.headers['webhook-id']));
    t.is(log.deliveries[0]!.attempts[0]!.statusCode, 200);
    t.is((await call(client.resendDelivery, { id, deliveryId: log.deliveries[0]!.id }, admin)).code, Status.OK);
    const rotated = await call<{ secret: string }>(client.rotateWebhookSecret, { id }, admin);
    t.not(rotated.value?.secret, secret);
    t.is((await call(client.deleteWebhook, { id }, admin)).code, Status.OK);
    t.is((await call(client.getWebhook, { id }, admin)).code, Status.NOT_FOUND);
  } finally {
    await receiver.close();
  }
});
