// Webhooks end to end: endpoints managed over REST with @switchyard/client, changes made over
// REST delivered by the service's relay to real node:http receivers on 127.0.0.1, each delivery
// verified by the Standard Webhooks algorithm written out in test/support (not the code under test).
import test from 'ava';
import { createRestClient, SwitchyardRestError, type RestClient } from '@switchyard/client';
import { eventually } from '@switchyard/core/testing';
import { acceptedByStandardWebhooks, signedBy, startReceiver } from '../support/webhook-receiver.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;

test.before(async () => {
  stack = await startStack({ WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' });
});

test.after.always(async () => {
  await stack?.stop();
});

async function clientOf(workspace: string, scope?: string): Promise<RestClient> {
  return createRestClient({ baseUrl: stack.url, token: await stack.token(workspace, scope ? { scope } : undefined) });
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; fields: (string | undefined)[] }> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof SwitchyardRestError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { status: error.status, code: error.code, fields: error.details.map((detail) => detail.field) };
}

const png = new Uint8Array(
  Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e0a3a3e10000000049454e44ae426082',
    'hex',
  ),
);

test('endpoints: created with a secret shown once, listed and read without it; bad input is a clear 400; workspace:admin only', async (t) => {
  const workspace = freshWorkspace();
  const client = await clientOf(workspace);
  const created = await client.createWebhook({
    url: 'http://127.0.0.1:9/hooks',
    events: ['asset.*', 'route.deleted'],
    description: 'index',
  });
  t.regex(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  t.like(created, { url: 'http://127.0.0.1:9/hooks', events: ['asset.*', 'route.deleted'], description: 'index', enabled: true });
  const read = await client.getWebhook(created.id);
  t.false('secret' in read);
  t.deepEqual((await client.listWebhooks()).webhooks, [read]);
  t.like(await client.updateWebhook(created.id, { enabled: false, events: ['*'] }), { enabled: false, events: ['*'] });

  for (const [body, field] of [
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'ftp://127.0.0.1/', events: ['*'] }, 'url'],
    [{ url: 'http://127.0.0.2/hooks', events: ['*'] }, 'url'],
    [{ url: 'http://127.1.2.3:8080/latest/meta-data', events: ['*'] }, 'url'],
    [{ url: 'http://user:pw@127.0.0.1/', events: ['*'] }, 'url'],
    [{ url: 'http://127.0.0.1:9/', events: ['asset.exploded'] }, 'events[0]'],
    [{ url: 'http://127.0.0.1:9/', events: [] }, 'events'],
  ] as const)
    t.deepEqual(
      await refusal(client.createWebhook(body)),
      { status: 400, code: 'invalid_argument', fields: [field] },
      JSON.stringify(body),
    );
  t.is((await refusal(client.updateWebhook(created.id, { url: 'http://[::1]/' }))).status, 400);
  t.is((await refusal(client.recoverDeliveries(created.id, 'yesterday'))).status, 400);
  t.is((await refusal(client.getWebhook('wh_00000000000000000000000000'))).status, 404);
  t.is((await refusal(client.getWebhook('nope'))).status, 400);
  t.is(
    (await refusal((await clientOf(freshWorkspace())).getWebhook(created.id))).status,
    404,
    "another workspace's endpoint does not exist",
  );
  t.is((await refusal((await clientOf(workspace, 'assets:read assets:write')).listWebhooks())).status, 403);
  t.deepEqual((await client.listWebhooks()).webhooks.length, 1, 'nothing stored by the refusals');
  await client.deleteWebhook(created.id);
  t.is((await refusal(client.getWebhook(created.id))).status, 404);
});

test('changes made over REST reach the receiver signed, in order, exactly as logged; a down receiver gets them on retry with the same webhook-id', async (t) => {
  const receiver = await startReceiver();
  try {
    const workspace = freshWorkspace();
    const client = await clientOf(workspace);
    const everything = await client.createWebhook({ url: receiver.url, events: ['*'] });
    receiver.answerNext({ status: 503 });
    const asset = await client.uploadAsset(new Blob([png], { type: 'image/png' }), { filename: 'dot.png' });
    const route = await client.createRoute({ method: 'GET', path: '/users/:id', handler: 'users.get' });
    await client.updateAsset(asset.id, { label: 'dot' });
    await client.deleteRoute(route.id);
    await client.deleteAsset(asset.id);
    await eventually(() => receiver.received.length >= 6, { timeout: 30_000, message: 'five events, one of them twice' });
    const bodies = receiver.received.map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> });
    // Healthy deliveries go in commit order; the one answered 503 comes again after its wait, wherever that falls.
    t.is(bodies[0]!.type, 'asset.created');
    t.deepEqual(
      bodies
        .slice(1)
        .filter((body) => body.type !== 'asset.created')
        .map((body) => body.type),
      ['route.created', 'asset.updated', 'route.deleted', 'asset.deleted'],
    );
    const retried = receiver.received.slice(1).filter((request) => (JSON.parse(request.body) as { type: string }).type === 'asset.created');
    t.is(retried.length, 1);
    t.is(retried[0]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'the same webhook-id on the retry');
    t.is(retried[0]!.body, receiver.received[0]!.body, 'and the same body');
    for (const request of receiver.received) {
      t.deepEqual(signedBy(request, [everything.secret]), [true]);
      t.true(acceptedByStandardWebhooks(request, everything.secret), 'standardwebhooks verifies it');
    }
    t.like(bodies[0]!.data, { workspace, revision: 1, asset: { id: asset.id, name: 'dot.png', type: 'image/png' } });
    const ofType = (type: string) => bodies.find((body) => body.type === type)!.data;
    t.like(ofType('route.created'), { workspace, revision: 1, route: { id: route.id, path: '/users/:id', handler: 'users.get' } });
    t.deepEqual(ofType('asset.deleted'), { workspace, revision: 3, actor: ofType('asset.deleted')['actor'], id: asset.id });

    const log = await client.listDeliveries(everything.id);
    t.is(log.deliveries.length, 5);
    t.true(log.deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.nextAttemptAt === null));
    const first = log.deliveries.at(-1)!;
    t.is(first.eventType, 'asset.created');
    t.is(first.messageId, String(receiver.received[0]!.headers['webhook-id']));
    t.deepEqual(
      first.attempts.map((attempt) => [attempt.statusCode, attempt.error]),
      [
        [503, 'answered 503'],
        [200, ''],
      ],
    );
    t.is((await client.listDeliveries(everything.id, { status: 'failed' })).deliveries.length, 0);
    const metrics = await stack.metrics.metrics();
    t.regex(metrics, /switchyard_webhook_attempts_total\{status="succeeded"\} [1-9]/);
    t.regex(metrics, /switchyard_webhook_attempts_total\{status="pending"\} [1-9]/);
    t.regex(metrics, /switchyard_webhook_delivery_latency_seconds_count [1-9]/);
    t.regex(metrics, /switchyard_webhook_oldest_due_seconds \d/);
    t.notRegex(metrics, new RegExp(everything.secret.slice('whsec_'.length).replace(/[+/]/g, '.')), 'no secret in the metrics');
    t.false(
      stack.serviceLogLines.some((line) => line.includes(everything.secret.slice('whsec_'.length))),
      'nor in the logs',
    );
  } finally {
    await receiver.close();
  }
});

test('test events, rotation signing with both secrets, 410 disabling, recovery and resend, over REST', async (t) => {
  const receiver = await startReceiver();
  try {
    const client = await clientOf(freshWorkspace());
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['route.*'] });
    const { secret } = await client.rotateWebhookSecret(endpoint.id);
    const queued = await client.testWebhook(endpoint.id);
    t.like(queued, { eventType: 'webhook.test', status: 'pending' });
    await eventually(() => receiver.received.length >= 1, { timeout: 30_000, message: 'the test event' });
    t.deepEqual(signedBy(receiver.received[0]!, [secret, endpoint.secret]), [true, true], 'both secrets sign for 24 h');
    t.true(acceptedByStandardWebhooks(receiver.received[0]!, secret), 'standardwebhooks verifies it with the new secret');
    t.true(acceptedByStandardWebhooks(receiver.received[0]!, endpoint.secret), 'and with the old one');
    const tested = JSON.parse(receiver.received[0]!.body) as { data: { workspace: string; webhookId: string } };
    t.deepEqual(tested.data, { workspace: tested.data.workspace, webhookId: endpoint.id });

    receiver.answerNext({ status: 410 });
    await client.createRoute({ method: 'GET', path: '/gone', handler: 'h' });
    await eventually(async () => !(await client.getWebhook(endpoint.id)).enabled, {
      timeout: 30_000,
      message: '410 disables the endpoint',
    });
    await client.createRoute({ method: 'GET', path: '/while-disabled', handler: 'h' });
    const failed = await eventually(
      async () => {
        const page = await client.listDeliveries(endpoint.id, { status: 'failed' });
        return page.deliveries.length === 2 && page;
      },
      { timeout: 10_000, message: 'both kept as failed' },
    );
    t.deepEqual(
      failed.deliveries.map((delivery) => delivery.eventType),
      ['route.created', 'route.created'],
    );
    await client.updateWebhook(endpoint.id, { enabled: true });
    t.deepEqual(await client.recoverDeliveries(endpoint.id, new Date(Date.now() - 3600_000).toISOString()), { queued: 2 });
    await eventually(() => receiver.received.length >= 4, { timeout: 30_000, message: 'both recovered' });
    t.deepEqual(
      receiver.received
        .slice(2)
        .map((request) => (JSON.parse(request.body) as { data: { route: { path: string } } }).data.route.path)
        .sort(),
      ['/gone', '/while-disabled'],
    );
    await client.resendDelivery(endpoint.id, queued.id);
    await eventually(() => receiver.received.length >= 5, { timeout: 30_000, message: 'the resend' });
    t.is(receiver.received[4]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
  } finally {
    await receiver.close();
  }
});
