import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { createPrincipal, SCOPES } from '../auth/principal.js';
import { isSwitchyardError, type ErrorCode } from '../errors.js';
import { createUlidSource } from '../ids.js';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { MemoryKeyStore } from '../memory/memory-key-store.js';
import { timeSourceOf } from '../testing/fake-time.js';
import { createApiKeys } from './api-keys.js';
import { keySecretDigest } from './key-secret.js';

const START = Date.parse('2025-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const admin = createPrincipal('alice', 'acme', SCOPES);

function setup(options: { feed?: LoopbackChangeFeed; purgeEveryMs?: number } = {}) {
  const clock = createClock(START);
  const time = timeSourceOf(clock);
  const store = new MemoryKeyStore();
  const keys = createApiKeys(store, time, createUlidSource(), { feed: options.feed, purgeEveryMs: options.purgeEveryMs });
  return { clock, time, store, keys, ...keys };
}

const inDays = (days: number) => new Date(START + days * DAY);

async function refusal(t: { true(value: boolean, message?: string): void }, promise: Promise<unknown>, code: ErrorCode): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  t.true(isSwitchyardError(error) && error.code === code, `expected ${code}, got ${String(error)}`);
  return isSwitchyardError(error) ? error.message : '';
}

test('a created key authenticates as itself with its scopes, and the store holds only a digest', async (t) => {
  const { service, verifier, store } = setup();
  const key = await service.create(admin, { name: ' deploy ', scopes: ['routes:read', 'routes:write'], expiresAt: inDays(30) });
  t.regex(key.id, /^key_/);
  t.is(key.name, 'deploy');
  t.is(key.createdBy, 'alice');
  t.is(key.lastUsedAt, undefined);
  const principal = await verifier.verify(key.secret);
  t.is(principal.workspace, 'acme');
  t.is(principal.keyId, key.id);
  t.is(principal.subject, key.id);
  t.deepEqual([...principal.scopes], ['routes:read', 'routes:write']);
  const stored = await store.get('acme', key.id);
  t.is(stored?.secretDigest, keySecretDigest(key.secret));
  t.false(JSON.stringify(stored).includes(key.secret));
  t.false(JSON.stringify(await service.get(admin, key.id)).includes('secret'));
});

test('create refuses bad input with invalid_argument and scopes beyond the creator with permission_denied', async (t) => {
  const { service } = setup();
  const good = { name: 'n', scopes: ['routes:read'], expiresAt: inDays(1) };
  for (const bad of [
    { ...good, name: '' },
    { ...good, name: 'x'.repeat(101) },
    { ...good, name: 'a\u0000b' },
    { ...good, scopes: [] },
    { ...good, scopes: ['routes:fly'] },
    { ...good, expiresAt: new Date(START) },
    { ...good, expiresAt: new Date(Number.NaN) },
    { ...good, expiresAt: inDays(366) },
  ])
    await refusal(t, service.create(admin, bad), 'invalid_argument');
  await t.notThrowsAsync(service.create(admin, { ...good, expiresAt: inDays(365) }));
  const reader = createPrincipal('bob', 'acme', ['routes:read', 'workspace:admin']);
  t.regex(
    await refusal(t, service.create(reader, { ...good, scopes: ['routes:read', 'assets:write'] }), 'permission_denied'),
    /assets:write/,
  );
  await refusal(t, service.create(createPrincipal('carol', 'acme', ['routes:read']), good), 'permission_denied');
});

test('the longest life follows maxTtlMs', async (t) => {
  const clock = createClock(START);
  const { service } = createApiKeys(new MemoryKeyStore(), timeSourceOf(clock), createUlidSource(), { maxTtlMs: 7 * DAY });
  await refusal(t, service.create(admin, { name: 'n', scopes: ['routes:read'], expiresAt: inDays(8) }), 'invalid_argument');
  await t.notThrowsAsync(service.create(admin, { name: 'n', scopes: ['routes:read'], expiresAt: inDays(7) }));
});

test('list pages oldest first; another workspace sees none of them', async (t) => {
  const { service } = setup();
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await service.create(admin, { name: `k${i}`, scopes: ['routes:read'], expiresAt: inDays(1) }));
  const first = await service.list(admin, { pageSize: 2 });
  const second = await service.list(admin, { pageSize: 2, pageToken: first.nextPageToken });
  const third = await service.list(admin, { pageSize: 2, pageToken: second.nextPageToken });
  t.deepEqual(
    [...first.keys, ...second.keys, ...third.keys].map((key) => key.id),
    made.map((key) => key.id),
  );
  t.is(third.nextPageToken, '');
  const other = createPrincipal('eve', 'other', SCOPES);
  t.deepEqual((await service.list(other)).keys, []);
  await refusal(t, service.get(other, made[0]!.id), 'not_found');
  await refusal(t, service.revoke(other, made[0]!.id), 'not_found');
  await refusal(t, service.list(other, { pageToken: first.nextPageToken }), 'invalid_argument');
  await refusal(t, service.get(admin, 'key_nope'), 'invalid_argument');
});

test('revoked and expired keys are refused, stay listed for 30 days, then are gone', async (t) => {
  const { service, verifier, clock } = setup();
  const revoked = await service.create(admin, { name: 'r', scopes: ['routes:read'], expiresAt: inDays(100) });
  const expiring = await service.create(admin, { name: 'e', scopes: ['routes:read'], expiresAt: inDays(1) });
  clock.tick(DAY);
  await service.revoke(admin, revoked.id);
  t.is(await refusal(t, verifier.verify(revoked.secret), 'unauthenticated'), 'API key revoked');
  t.truthy((await service.get(admin, revoked.id)).revokedAt);
  await service.revoke(admin, revoked.id);
  t.is(await refusal(t, verifier.verify(expiring.secret), 'unauthenticated'), 'API key expired');
  t.is((await service.list(admin)).keys.length, 2);
  clock.tick(30 * DAY);
  t.is((await service.list(admin)).keys.length, 2);
  clock.tick(1);
  t.deepEqual((await service.list(admin)).keys, []);
  await refusal(t, service.get(admin, revoked.id), 'not_found');
});

test('keys revoked or expired more than 30 days ago are deleted by the purge timer, on the given time', async (t) => {
  const HOUR = 3_600_000;
  const { service, verifier, store, clock, close } = setup({ purgeEveryMs: HOUR });
  t.teardown(close);
  const revoked = await service.create(admin, { name: 'r', scopes: ['routes:read'], expiresAt: inDays(100) });
  const expiring = await service.create(admin, { name: 'e', scopes: ['routes:read'], expiresAt: inDays(1) });
  const live = await service.create(admin, { name: 'l', scopes: ['routes:read'], expiresAt: inDays(100) });
  await service.revoke(admin, revoked.id);
  const stored = async () => (await Promise.all([revoked, expiring, live].map((key) => store.get('acme', key.id)))).map(Boolean);
  // 30 days after the revocation, on the hour: still kept (the retention is "more than 30 days").
  await clock.tickAsync(30 * DAY);
  t.deepEqual(await stored(), [true, true, true]);
  t.is((await service.list(admin)).keys.length, 3);
  await clock.tickAsync(HOUR);
  t.deepEqual(await stored(), [false, true, true], 'the revoked key is gone from the store, its digest with it');
  await refusal(t, verifier.verify(revoked.secret), 'unauthenticated');
  // The expired key's 30 days end a day later (it expired on day 1).
  await clock.tickAsync(DAY);
  t.deepEqual(await stored(), [false, false, true]);
  t.deepEqual(
    (await service.list(admin)).keys.map((key) => key.id),
    [live.id],
  );
});

test('purge() deletes what the timer would, and nothing without a timer otherwise', async (t) => {
  const { service, store, clock, keys } = setup();
  const revoked = await service.create(admin, { name: 'r', scopes: ['routes:read'], expiresAt: inDays(100) });
  await service.revoke(admin, revoked.id);
  await clock.tickAsync(31 * DAY);
  t.truthy(await store.get('acme', revoked.id), 'no timer: kept until asked');
  t.is(await keys.purge(), 1);
  t.is(await store.get('acme', revoked.id), undefined);
  t.is(await keys.purge(), 0);
});

test('a malformed or unknown secret is refused; a wrong checksum reads nothing', async (t) => {
  const { verifier, store } = setup();
  let reads = 0;
  const find = store.findByDigest.bind(store);
  store.findByDigest = async (digest) => {
    reads++;
    return find(digest);
  };
  t.is(await refusal(t, verifier.verify('sy_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA000000'), 'unauthenticated'), 'malformed API key');
  t.is(reads, 0);
  const { service } = setup();
  const other = await service.create(admin, { name: 'k', scopes: ['routes:read'], expiresAt: inDays(1) });
  t.is(await refusal(t, verifier.verify(other.secret), 'unauthenticated'), 'unknown API key');
  t.is(reads, 1);
});

test('roll: the new secret works at once, the old one until the grace ends, not at it', async (t) => {
  const { service, verifier, clock } = setup();
  const key = await service.create(admin, { name: 'k', scopes: ['routes:read'], expiresAt: inDays(30) });
  const rolled = await service.roll(admin, key.id, 60);
  t.is(rolled.id, key.id);
  t.not(rolled.secret, key.secret);
  t.is((await verifier.verify(rolled.secret)).keyId, key.id);
  clock.tick(59_999);
  t.is((await verifier.verify(key.secret)).keyId, key.id);
  clock.tick(1);
  t.is(await refusal(t, verifier.verify(key.secret), 'unauthenticated'), 'API key secret was rolled');
  t.is((await verifier.verify(rolled.secret)).keyId, key.id);
  const again = await service.roll(admin, key.id, 0);
  t.is(await refusal(t, verifier.verify(rolled.secret), 'unauthenticated'), 'API key secret was rolled');
  t.is((await verifier.verify(again.secret)).keyId, key.id);
  for (const grace of [-1, 604_801, 1.5, Number.NaN]) await refusal(t, service.roll(admin, key.id, grace), 'invalid_argument');
  await service.revoke(admin, key.id);
  t.regex(await refusal(t, service.roll(admin, key.id, 0), 'failed_precondition'), /revoked: create a new one/);
});

test('a revocation another instance made is seen once the cache entry ages out (5 s), not before', async (t) => {
  const clock = createClock(START);
  const time = timeSourceOf(clock);
  const store = new MemoryKeyStore();
  const one = createApiKeys(store, time, createUlidSource());
  const two = createApiKeys(store, time, createUlidSource());
  const key = await one.service.create(admin, { name: 'k', scopes: ['routes:read'], expiresAt: inDays(1) });
  await two.verifier.verify(key.secret);
  await one.service.revoke(admin, key.id);
  await refusal(t, one.verifier.verify(key.secret), 'unauthenticated');
  clock.tick(4_999);
  t.is((await two.verifier.verify(key.secret)).keyId, key.id);
  clock.tick(1);
  await refusal(t, two.verifier.verify(key.secret), 'unauthenticated');
});

test('with a shared feed, a revocation reaches the other instance at once', async (t) => {
  const clock = createClock(START);
  const time = timeSourceOf(clock);
  const store = new MemoryKeyStore();
  const feed = new LoopbackChangeFeed();
  const one = createApiKeys(store, time, createUlidSource(), { feed });
  const two = createApiKeys(store, time, createUlidSource(), { feed });
  const key = await one.service.create(admin, { name: 'k', scopes: ['routes:read'], expiresAt: inDays(1) });
  await two.verifier.verify(key.secret);
  await one.service.revoke(admin, key.id);
  // The loopback feed delivers on a later microtask, as a broker would later.
  await new Promise<void>((resolve) => setImmediate(resolve));
  await refusal(t, two.verifier.verify(key.secret), 'unauthenticated');
  one.close();
  two.close();
});

test('lastUsedAt is written at most once a minute', async (t) => {
  const { service, verifier, clock, store } = setup();
  const key = await service.create(admin, { name: 'k', scopes: ['routes:read'], expiresAt: inDays(1) });
  const writes: number[] = [];
  const touch = store.touch.bind(store);
  store.touch = async (id, at, staleBefore) => {
    writes.push(at.getTime() - START);
    return touch(id, at, staleBefore);
  };
  await verifier.verify(key.secret);
  t.deepEqual(writes, [0]);
  t.is((await service.get(admin, key.id)).lastUsedAt?.getTime(), START);
  clock.tick(59_999);
  await verifier.verify(key.secret);
  t.deepEqual(writes, [0]);
  clock.tick(1);
  await verifier.verify(key.secret);
  t.deepEqual(writes, [0, 60_000]);
  t.is((await service.get(admin, key.id)).lastUsedAt?.getTime(), START + 60_000);
});
