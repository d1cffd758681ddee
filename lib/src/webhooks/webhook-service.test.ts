import test from 'ava';
import { createPrincipal, SCOPES } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import { MemoryWebhookStore } from '../memory/memory-webhook-store.js';
import { createManualClock } from '../testing/manual-clock.js';
import { createSequentialIds } from '../testing/sequential-ids.js';
import { sampleAsset } from '../testing/asset-samples.js';
import { createWebhookService, ROTATION_OVERLAP_MS } from './webhook-service.js';
import { webhookSettingsOf } from './webhook-settings.js';

const admin = createPrincipal('alice', 'acme', SCOPES);
const reader = createPrincipal('bob', 'acme', new Set(['assets:read', 'routes:read'] as const));
const stranger = createPrincipal('eve', 'other', SCOPES);

function setup() {
  const clock = createManualClock('2026-02-03T04:05:06.000Z');
  const store = new MemoryWebhookStore({ ids: createSequentialIds() });
  const assets = new MemoryAssetStore({ outbox: store });
  const service = createWebhookService({
    store,
    clock,
    ids: createSequentialIds(),
    settings: webhookSettingsOf({ allowedNetworks: '127.0.0.0/8' }),
  });
  return { clock, store, assets, service };
}

async function code(promise: Promise<unknown>): Promise<[string | undefined, string | undefined]> {
  try {
    await promise;
    return [undefined, undefined];
  } catch (error) {
    if (!(error instanceof SwitchyardError)) throw error;
    return [error.code, error.details[0]?.field];
  }
}

test('create answers the secret once; list and get never show it; workspace:admin only; other workspaces see nothing', async (t) => {
  const { service, store } = setup();
  const created = await service.create(admin, { url: 'https://hooks.example.com/in', events: ['asset.*'], description: 'index' });
  t.regex(created.secret, /^whsec_/);
  t.like(created, { url: 'https://hooks.example.com/in', events: ['asset.*'], description: 'index', enabled: true });
  t.false('secret' in (await service.get(admin, created.id)));
  t.false((await service.list(admin)).some((endpoint) => 'secret' in endpoint));
  t.is((await store.getEndpoint('acme', created.id))?.secret, created.secret);
  t.deepEqual(await code(service.list(reader)), ['permission_denied', undefined]);
  t.deepEqual(await code(service.get(stranger, created.id)), ['not_found', undefined]);
  t.deepEqual(await code(service.get(admin, 'wh_nope')), ['invalid_argument', 'id']);
  t.deepEqual(await service.list(stranger), []);
});

test('bad input is invalid_argument naming the field, and nothing is stored', async (t) => {
  const { service } = setup();
  const cases: [unknown, unknown, unknown, string][] = [
    ['ftp://x.example/', ['*'], '', 'url'],
    ['http://10.0.0.1/', ['*'], '', 'url'],
    ['http://169.254.169.254/', ['*'], '', 'url'],
    [42, ['*'], '', 'url'],
    ['https://x.example/', ['asset.exploded'], '', 'events[0]'],
    ['https://x.example/', [], '', 'events'],
    ['https://x.example/', ['*'], 'x'.repeat(501), 'description'],
  ];
  for (const [url, events, description, field] of cases)
    t.deepEqual(await code(service.create(admin, { url, events, description })), ['invalid_argument', field], String(field));
  t.deepEqual(await service.list(admin), []);
  const made = await service.create(admin, { url: 'http://127.0.0.1:9/', events: ['*'] });
  t.deepEqual(await code(service.update(admin, made.id, { enabled: 'yes' })), ['invalid_argument', 'enabled']);
  t.deepEqual(await code(service.update(admin, made.id, { url: 'http://[::1]/' })), ['invalid_argument', 'url']);
  t.deepEqual(await code(service.recover(admin, made.id, 'yesterday')), ['invalid_argument', 'since']);
  t.deepEqual(await code(service.listDeliveries(admin, made.id, { status: 'lost' })), ['invalid_argument', 'status']);
  t.deepEqual(await code(service.resend(admin, made.id, 'dlv_nope')), ['invalid_argument', 'deliveryId']);
  t.like(await service.get(admin, made.id), { url: 'http://127.0.0.1:9/', enabled: true });
});

test('update, rotate (the old secret kept 24 h), test, deliveries, resend, recover, delete', async (t) => {
  const { service, store, assets, clock } = setup();
  const made = await service.create(admin, { url: 'https://hooks.example.com/in', events: ['asset.created'] });
  clock.advance(1000);
  const updated = await service.update(admin, made.id, { events: ['*'], description: 'all', enabled: false });
  t.like(updated, { events: ['*'], description: 'all', enabled: false });
  t.is(updated.updatedAt.toISOString(), '2026-02-03T04:05:07.000Z');
  await service.update(admin, made.id, { enabled: true });

  const { secret } = await service.rotateSecret(admin, made.id);
  t.not(secret, made.secret);
  const rotated = await store.getEndpoint('acme', made.id);
  t.is(rotated?.secret, secret);
  t.is(rotated?.previousSecret, made.secret);
  t.is(rotated?.previousSecretUntil?.getTime(), clock.now().getTime() + ROTATION_OVERLAP_MS);

  const sent = await service.test(admin, made.id);
  t.like(sent, { eventType: 'webhook.test', status: 'pending', webhookId: made.id });
  await assets.insert(sampleAsset('acme'), { actor: 'alice', time: clock.now() });
  const page = await service.listDeliveries(admin, made.id, { pageSize: 1 });
  t.is(page.deliveries[0]?.eventType, 'asset.created', 'newest first');
  const next = await service.listDeliveries(admin, made.id, { pageSize: 1, pageToken: page.nextPageToken });
  t.is(next.deliveries[0]?.id, sent.id);
  t.is(next.nextPageToken, '');
  t.deepEqual(await code(service.listDeliveries(admin, made.id, { pageToken: page.nextPageToken, status: 'failed' })), [
    'invalid_argument',
    'pageToken',
  ]);

  await service.update(admin, made.id, { enabled: false });
  t.deepEqual(
    (await service.listDeliveries(admin, made.id)).deliveries.map((delivery) => delivery.status),
    ['failed', 'failed'],
  );
  await service.update(admin, made.id, { enabled: true });
  t.deepEqual(await service.recover(admin, made.id, '2026-02-03T04:05:06Z'), { queued: 2 });
  await service.update(admin, made.id, { enabled: false });
  await service.update(admin, made.id, { enabled: true });
  await service.resend(admin, made.id, sent.id);
  t.deepEqual(
    (await service.listDeliveries(admin, made.id, { status: 'pending' })).deliveries.map((delivery) => delivery.id),
    [sent.id],
  );
  t.deepEqual(await code(service.resend(stranger, made.id, sent.id)), ['not_found', undefined]);
  await service.delete(admin, made.id);
  t.deepEqual(await code(service.get(admin, made.id)), ['not_found', undefined]);
});
