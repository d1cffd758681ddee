import type { ExecutionContext } from 'ava';
import type { Kysely } from 'kysely';
import { createClock } from '@sinonjs/fake-timers';
import { SCOPES, createPrincipal, createUlidSource, createWebhookRelay, createWebhookService, webhookSettingsOf } from '@switchyard/core';
import { eventually, sampleAsset, sampleRoute, timeSourceOf, uniqueName } from '@switchyard/core/testing';
import { KyselyAssetStore } from '../stores/kysely-asset-store.js';
import { KyselyRouteStore } from '../stores/kysely-route-store.js';
import { KyselyWebhookStore } from '../stores/kysely-webhook-store.js';
import type { Database } from '../stores/schema.js';
import { createHttpWebhookSender } from './http-webhook-sender.js';
import { signedBy, startReceiver } from '../../../test/support/webhook-receiver.js';

const START = Date.parse('2026-04-01T00:00:00.000Z');
const settings = webhookSettingsOf({ retrySchedule: '1s,2s', timeoutMs: 1000, allowedNetworks: '127.0.0.0/8' });

/** One service instance's relay on `db`, on its own fake clock. */
function instance(db: Kysely<Database>) {
  const fake = createClock(START);
  const time = timeSourceOf(fake);
  const store = new KyselyWebhookStore(db);
  const sender = createHttpWebhookSender({ addresses: settings.addresses, timers: time });
  const relay = createWebhookRelay({ store, sender, time, settings, perEndpoint: 8, maxInFlight: 8 });
  return { fake, time, store, relay, close: async () => (await relay.close(), sender.close()) };
}

/** Runs `relay` until a run sends nothing. */
async function drain(relay: { runOnce(): Promise<number> }): Promise<number> {
  let sent = 0;
  for (let n = await relay.runOnce(); n > 0; n = await relay.runOnce()) sent += n;
  return sent;
}

/**
 * An instance claims every delivery and dies before sending any: nothing is
 * lost. Another instance (a restarted process) takes them once their claims
 * lapse, and not before; each reaches the receiver once, signed.
 */
export async function claimsOfADeadInstanceResume(t: ExecutionContext, db: Kysely<Database>): Promise<void> {
  const receiver = await startReceiver();
  const dead = instance(db);
  const alive = instance(db);
  try {
    const workspace = uniqueName();
    const admin = createPrincipal('alice', workspace, SCOPES);
    const webhooks = createWebhookService({ store: dead.store, clock: dead.time, ids: createUlidSource(), settings });
    const endpoint = await webhooks.create(admin, { url: receiver.url, events: ['*'] });
    const assets = new KyselyAssetStore(db, { outbox: dead.store });
    const routes = new KyselyRouteStore(db, { outbox: dead.store });
    for (let i = 0; i < 3; i++) await assets.insert(sampleAsset(workspace), { actor: 'a', time: dead.time.now() });
    await routes.insert(sampleRoute(workspace), { actor: 'a', time: dead.time.now() });
    const claimed = await dead.store.claimDue({
      now: dead.time.now(),
      leaseUntil: new Date(START + settings.timeoutMs + 30_000),
      limit: 100,
      perEndpoint: 100,
      busy: new Map(),
    });
    t.is(claimed.filter((claim) => claim.delivery.workspace === workspace).length, 4);
    await dead.close();

    t.is(await drain(alive.relay), 0, 'claimed by the dead instance until its claim lapses');
    alive.fake.tick(settings.timeoutMs + 30_000);
    t.is(await drain(alive.relay), 4);
    t.is(receiver.received.length, 4);
    t.is(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size, 4);
    for (const request of receiver.received) t.deepEqual(signedBy(request, [endpoint.secret]), [true]);
    const log = await alive.store.listDeliveries(workspace, endpoint.id, { limit: 10 });
    t.deepEqual(
      log.map((delivery) => delivery.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
    t.deepEqual(
      log.map((delivery) => delivery.attempts.length),
      [1, 1, 1, 1],
    );
  } finally {
    await dead.close();
    await alive.close();
    await receiver.close();
  }
}

/** Two instances relay the same outbox at once: every delivery is sent by one of them, once. */
export async function twoInstancesSendEachDeliveryOnce(t: ExecutionContext, db: Kysely<Database>, changes: number): Promise<void> {
  const receiver = await startReceiver();
  const a = instance(db);
  const b = instance(db);
  try {
    const workspace = uniqueName();
    const admin = createPrincipal('alice', workspace, SCOPES);
    const webhooks = createWebhookService({ store: a.store, clock: a.time, ids: createUlidSource(), settings });
    const endpoint = await webhooks.create(admin, { url: receiver.url, events: ['*'] });
    const assets = new KyselyAssetStore(db, { outbox: a.store });
    for (let i = 0; i < changes; i++) await assets.insert(sampleAsset(workspace), { actor: 'a', time: a.time.now() });
    const [sentByA, sentByB] = await Promise.all([drain(a.relay), drain(b.relay)]);
    t.is(sentByA + sentByB, changes);
    t.is(receiver.received.length, changes);
    t.is(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size, changes, 'each webhook-id once');
    for (const request of receiver.received) t.deepEqual(signedBy(request, [endpoint.secret]), [true]);
  } finally {
    await a.close();
    await b.close();
    await receiver.close();
  }
}

/**
 * A change committed in this process wakes its relay: the change is sent on a
 * 0 ms timer of the fake clock, which never reaches the relay's poll (1 s),
 * so nothing but the store's signal can have sent it.
 */
export async function aLocalCommitWakesTheRelay(t: ExecutionContext, db: Kysely<Database>): Promise<void> {
  const receiver = await startReceiver();
  const one = instance(db);
  try {
    const workspace = uniqueName();
    const admin = createPrincipal('alice', workspace, SCOPES);
    const webhooks = createWebhookService({ store: one.store, clock: one.time, ids: createUlidSource(), settings });
    await webhooks.create(admin, { url: receiver.url, events: ['*'] });
    const assets = new KyselyAssetStore(db, { outbox: one.store });
    const routes = new KyselyRouteStore(db, { outbox: one.store });
    one.relay.start();
    await one.fake.tickAsync(0);
    const author = () => ({ actor: 'a', time: one.time.now() });
    const arrived = (count: number) =>
      eventually(() => receiver.received.length >= count, { timeout: 20_000, message: `delivery ${count} without a poll` });

    await assets.insert(sampleAsset(workspace), author());
    await one.fake.tickAsync(0);
    await arrived(1);
    await routes.insert(sampleRoute(workspace), author());
    await one.fake.tickAsync(0);
    await arrived(2);
    t.is(one.fake.now, START, 'the clock never moved: no poll ran');
    t.deepEqual(
      receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type),
      ['asset.created', 'route.created'],
    );
  } finally {
    await one.close();
    await receiver.close();
  }
}
