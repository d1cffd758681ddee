// The relay against real node:http receivers on 127.0.0.1, on fake time: every retry wait is a
// move of the clock, never a wait, and the receivers verify each delivery by the Standard Webhooks
// algorithm written out in the test support (not the code under test).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import {
  MemoryAssetStore,
  MemoryRouteStore,
  MemoryWebhookStore,
  SCOPES,
  createPrincipal,
  createUlidSource,
  createWebhookRelay,
  createWebhookService,
  webhookSettingsOf,
  type HostResolver,
} from '@switchyard/core';
import { eventually, sampleAsset, sampleRoute, timeSourceOf } from '@switchyard/core/testing';
import { createHttpWebhookSender } from './http-webhook-sender.js';
import { signedBy, startReceiver } from '../../../test/support/webhook-receiver.js';

const START = Date.parse('2026-03-01T10:00:00.000Z');
const admin = createPrincipal('alice', 'acme', SCOPES);

function setup(resolve?: HostResolver) {
  const fake = createClock(START);
  const time = timeSourceOf(fake);
  const store = new MemoryWebhookStore();
  const assets = new MemoryAssetStore({ outbox: store });
  const routes = new MemoryRouteStore({ outbox: store });
  const settings = webhookSettingsOf({ retrySchedule: '1s,2s,4s', timeoutMs: 1000, allowedNetworks: '127.0.0.0/8' });
  const sender = createHttpWebhookSender({ addresses: settings.addresses, timers: time, resolve });
  const relay = createWebhookRelay({ store, sender, time, settings, perEndpoint: 1 });
  const webhooks = createWebhookService({ store, clock: time, ids: createUlidSource(), settings });
  const author = () => ({ actor: 'alice', time: time.now() });
  return { fake, time, store, assets, routes, relay, webhooks, author, close: async () => (await relay.close(), sender.close()) };
}

test('each committed change reaches the endpoint once, in order, exactly as stored, signed per Standard Webhooks', async (t) => {
  const receiver = await startReceiver();
  const s = setup();
  try {
    const endpoint = await s.webhooks.create(admin, { url: receiver.url, events: ['*'] });
    const asset = sampleAsset('acme');
    await s.assets.insert(asset, s.author());
    await s.assets.update('acme', asset.id, { name: 'renamed.png' }, s.author());
    const route = sampleRoute('acme');
    await s.routes.insert(route, s.author());
    await t.throwsAsync(
      s.routes.insert({ ...sampleRoute('acme'), path: route.path, shape: route.shape }, s.author()),
      undefined,
      'a refused write is never delivered',
    );
    await s.assets.delete('acme', asset.id, s.author());
    await s.routes.delete('acme', route.id, s.author());
    const stored = (await s.store.listDeliveries('acme', endpoint.id, { limit: 100 })).reverse();
    t.is(stored.length, 5);

    let sent = 0;
    for (let run = 0; run < 10 && sent < 5; run++) sent += await s.relay.runOnce();
    t.is(sent, 5);
    t.deepEqual(
      receiver.received.map((request) => request.body),
      stored.map((delivery) => delivery.message.body),
      'in commit order, byte for byte what the outbox holds',
    );
    t.deepEqual(
      receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type),
      ['asset.created', 'asset.updated', 'route.created', 'asset.deleted', 'route.deleted'],
    );
    for (const [i, request] of receiver.received.entries()) {
      t.deepEqual(signedBy(request, [endpoint.secret]), [true]);
      t.is(request.headers['webhook-id'], stored[i]!.message.id);
      t.is(request.headers['webhook-timestamp'], String(Math.floor(START / 1000)));
      t.is(request.headers['content-type'], 'application/json');
    }
    const body = JSON.parse(receiver.received[1]!.body) as { timestamp: string; data: Record<string, unknown> };
    t.is(body.timestamp, new Date(START).toISOString());
    t.like(body.data, { workspace: 'acme', revision: 2, actor: 'alice', asset: { id: asset.id, name: 'renamed.png' } });
    t.deepEqual((JSON.parse(receiver.received[3]!.body) as { data: unknown }).data, {
      workspace: 'acme',
      revision: 3,
      actor: 'alice',
      id: asset.id,
    });
    const log = await s.webhooks.listDeliveries(admin, endpoint.id, { status: 'succeeded' });
    t.is(log.deliveries.length, 5);
    t.like(log.deliveries[0]!.attempts[0], { statusCode: 200, error: '', response: 'ok' });
    t.is(log.deliveries[0]!.nextAttemptAt, undefined);
    t.is(await s.relay.runOnce(), 0, 'nothing is sent twice');
  } finally {
    await s.close();
    await receiver.close();
  }
});

test('a receiver down, then answering 500, then up: retried on the schedule with the same webhook-id, every attempt logged', async (t) => {
  const probe = await startReceiver();
  const port = probe.port;
  await probe.close();
  const s = setup();
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  try {
    const endpoint = await s.webhooks.create(admin, { url: `http://127.0.0.1:${port}/hooks`, events: ['asset.*'] });
    await s.assets.insert(sampleAsset('acme'), s.author());
    t.is(await s.relay.runOnce(), 1, 'refused: nobody listens');
    t.is(await s.relay.runOnce(), 0, 'not due before its wait');
    s.fake.tick(1000);
    receiver = await startReceiver(port);
    receiver.answerNext({ status: 500, body: 'x'.repeat(5000) });
    t.is(await s.relay.runOnce(), 1);
    s.fake.tick(1999);
    t.is(await s.relay.runOnce(), 0);
    s.fake.tick(1);
    t.is(await s.relay.runOnce(), 1);
    t.is(receiver.received.length, 2);
    t.is(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id'], 'the same webhook-id on every attempt');
    t.not(
      receiver.received[0]!.headers['webhook-timestamp'],
      receiver.received[1]!.headers['webhook-timestamp'],
      'each attempt signed at its own time',
    );
    for (const request of receiver.received) t.deepEqual(signedBy(request, [endpoint.secret]), [true]);
    const [delivery] = (await s.webhooks.listDeliveries(admin, endpoint.id)).deliveries;
    t.is(delivery?.status, 'succeeded');
    t.deepEqual(
      delivery?.attempts.map((attempt) => [attempt.at.getTime() - START, attempt.statusCode]),
      [
        [0, 0],
        [1000, 500],
        [3000, 200],
      ],
    );
    t.regex(delivery!.attempts[0]!.error, /ECONNREFUSED/);
    t.is(delivery!.attempts[1]!.response.length, 1024, 'at most 1 KiB of an answer is kept');
    t.is(delivery!.attempts[1]!.error, 'answered 500');
  } finally {
    await s.close();
    await receiver?.close();
  }
});

test('a hang past the timeout, 429 with Retry-After, then the schedule spent: failed, kept, and recovered', async (t) => {
  const receiver = await startReceiver();
  const s = setup();
  try {
    const endpoint = await s.webhooks.create(admin, { url: receiver.url, events: ['route.created'] });
    await s.routes.insert(sampleRoute('acme'), s.author());
    receiver.answerNext(
      'hang',
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 503 },
      { status: 302, headers: { location: receiver.url } },
    );
    const hung = s.relay.runOnce();
    await receiver.until(1);
    s.fake.tick(1000);
    t.is(await hung, 1);
    s.fake.tick(1000);
    t.is(await s.relay.runOnce(), 1, '429');
    s.fake.tick(2999);
    t.is(await s.relay.runOnce(), 0, 'waits the 3 s it was asked, not the schedule');
    s.fake.tick(1);
    t.is(await s.relay.runOnce(), 1, '503 without Retry-After');
    s.fake.tick(4000);
    t.is(await s.relay.runOnce(), 1, 'a redirect, not followed');
    t.is(receiver.received.length, 4);
    const [delivery] = (await s.webhooks.listDeliveries(admin, endpoint.id)).deliveries;
    t.is(delivery?.status, 'failed');
    t.deepEqual(
      delivery?.attempts.map((attempt) => attempt.statusCode),
      [0, 429, 503, 302],
    );
    t.is(delivery?.attempts[0]?.error, 'no answer within 1000 ms');
    s.fake.tick(60_000);
    t.is(await s.relay.runOnce(), 0);

    t.deepEqual(await s.webhooks.recover(admin, endpoint.id, new Date(START).toISOString()), { queued: 1 });
    t.is(await s.relay.runOnce(), 1);
    t.is(receiver.received.length, 5);
    t.is(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size, 1);
    const [recovered] = (await s.webhooks.listDeliveries(admin, endpoint.id)).deliveries;
    t.is(recovered?.status, 'succeeded');
  } finally {
    await s.close();
    await receiver.close();
  }
});

test('410 disables the endpoint; events meanwhile are kept as failed; enabled again, they are recovered; test events and resend', async (t) => {
  const receiver = await startReceiver();
  const s = setup();
  try {
    const endpoint = await s.webhooks.create(admin, { url: receiver.url, events: ['asset.*'] });
    await s.assets.insert(sampleAsset('acme'), s.author());
    receiver.answerNext({ status: 410 });
    t.is(await s.relay.runOnce(), 1);
    t.false((await s.webhooks.get(admin, endpoint.id)).enabled);
    await s.assets.insert(sampleAsset('acme'), s.author());
    t.is(await s.relay.runOnce(), 0);
    t.deepEqual(
      (await s.webhooks.listDeliveries(admin, endpoint.id)).deliveries.map((delivery) => delivery.status),
      ['failed', 'failed'],
    );
    await s.webhooks.update(admin, endpoint.id, { enabled: true });
    t.deepEqual(await s.webhooks.recover(admin, endpoint.id, new Date(START).toISOString()), { queued: 2 });
    t.is(await s.relay.runOnce(), 2, 'both recovered deliveries go out in one run, in order');
    t.is(await s.relay.runOnce(), 0);
    const test1 = await s.webhooks.test(admin, endpoint.id);
    t.is(await s.relay.runOnce(), 1);
    await s.webhooks.resend(admin, endpoint.id, test1.id);
    t.is(await s.relay.runOnce(), 1);
    const bodies = receiver.received.map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    t.deepEqual(
      bodies.map((body) => body.type),
      ['asset.created', 'asset.created', 'asset.created', 'webhook.test', 'webhook.test'],
    );
    t.deepEqual(bodies[3]!.data, { workspace: 'acme', webhookId: endpoint.id });
    t.is(receiver.received[3]!.headers['webhook-id'], receiver.received[4]!.headers['webhook-id'], 'a resend keeps the webhook-id');
    t.is(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id'], 'so does a recovery');
  } finally {
    await s.close();
    await receiver.close();
  }
});

test('after a rotation both secrets sign for 24 h, then only the new one', async (t) => {
  const receiver = await startReceiver();
  const s = setup();
  try {
    const endpoint = await s.webhooks.create(admin, { url: receiver.url, events: ['*'] });
    const { secret } = await s.webhooks.rotateSecret(admin, endpoint.id);
    await s.webhooks.test(admin, endpoint.id);
    await s.relay.runOnce();
    s.fake.tick(24 * 3600_000);
    await s.webhooks.test(admin, endpoint.id);
    await s.relay.runOnce();
    t.is(receiver.received.length, 2);
    t.is(String(receiver.received[0]!.headers['webhook-signature']).split(' ').length, 2);
    t.deepEqual(signedBy(receiver.received[0]!, [secret, endpoint.secret]), [true, true]);
    t.is(String(receiver.received[1]!.headers['webhook-signature']).split(' ').length, 1);
    t.deepEqual(signedBy(receiver.received[1]!, [secret, endpoint.secret]), [true, false]);
  } finally {
    await s.close();
    await receiver.close();
  }
});

// Serial: the socket channel is process-wide, and no other test of this file may open sockets meanwhile.
test.serial('a name that resolves to a private or metadata address is refused before any socket is opened', async (t) => {
  const names: Record<string, string> = { 'inside.test': '10.0.0.1', 'metadata.test': '169.254.169.254' };
  const s = setup(async (host) => [{ address: names[host] ?? '127.0.0.1', family: 4 }]);
  const sockets: unknown[] = [];
  const onSocket = (message: unknown) => void sockets.push(message);
  subscribe('net.client.socket', onSocket);
  try {
    for (const host of Object.keys(names)) {
      const endpoint = await s.webhooks.create(admin, { url: `http://${host}/hooks`, events: ['*'] });
      await s.webhooks.test(admin, endpoint.id);
      t.is(await s.relay.runOnce(), 1);
      const [delivery] = (await s.webhooks.listDeliveries(admin, endpoint.id)).deliveries;
      t.like(delivery?.attempts[0], { statusCode: 0 });
      t.regex(delivery!.attempts[0]!.error, new RegExp(`destination refused: ${host} resolves to ${names[host]!.replaceAll('.', '\\.')}`));
      await s.webhooks.delete(admin, endpoint.id);
    }
    t.deepEqual(sockets, [], 'no connection was attempted');
    // The control: a name that resolves to an allowed address is connected to, and the channel sees it.
    const receiver = await startReceiver();
    try {
      const endpoint = await s.webhooks.create(admin, { url: `http://loop.test:${receiver.port}/hooks`, events: ['*'] });
      await s.webhooks.test(admin, endpoint.id);
      t.is(await s.relay.runOnce(), 1);
      t.is(receiver.received.length, 1);
      t.is(receiver.received[0]!.headers.host, `loop.test:${receiver.port}`, 'the name is kept in Host; only the address was pinned');
      t.is(sockets.length, 1);
    } finally {
      await receiver.close();
    }
  } finally {
    unsubscribe('net.client.socket', onSocket);
    await s.close();
  }
});

test('on memory, a commit, a test event and a resend each wake the started relay at once: the clock never reaches its poll', async (t) => {
  const receiver = await startReceiver();
  const s = setup();
  try {
    const endpoint = await s.webhooks.create(admin, { url: receiver.url, events: ['asset.*'] });
    s.relay.start();
    await s.fake.tickAsync(0);
    const arrived = (count: number) =>
      eventually(() => receiver.received.length >= count, { timeout: 20_000, message: `delivery ${count} without a poll` });

    await s.assets.insert(sampleAsset('acme'), s.author());
    await s.fake.tickAsync(0);
    await arrived(1);
    const testDelivery = await s.webhooks.test(admin, endpoint.id);
    await s.fake.tickAsync(0);
    await arrived(2);
    // The test delivery is recorded once its send ends; the resend waits for that, then wakes the relay again.
    await eventually(async () => (await s.webhooks.listDeliveries(admin, endpoint.id, { status: 'succeeded' })).deliveries.length === 2, {
      timeout: 20_000,
      message: 'both recorded',
    });
    await s.webhooks.resend(admin, endpoint.id, testDelivery.id);
    await s.fake.tickAsync(0);
    await arrived(3);
    t.is(s.fake.now, START, 'the clock never moved: no poll ran');
    t.deepEqual(
      receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type),
      ['asset.created', 'webhook.test', 'webhook.test'],
    );
    t.is(receiver.received[2]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id']);
  } finally {
    await s.close();
    await receiver.close();
  }
});
