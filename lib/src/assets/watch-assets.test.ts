import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { SwitchyardError } from '../errors.js';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import { eventually } from '../testing/eventually.js';
import { timeSourceOf } from '../testing/fake-time.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { alice, bob, chunked, principalWith, setup } from './test-support.js';
import type { AssetService, AssetWatchEvent, WatchAssetsOptions } from './types.js';

// Asset watches: from now or from a revision, across two instances over one store (a feed or polling), on fake time.

const body = (text: string) => chunked(Buffer.from(text));

/** Two asset services over one store, as two processes over one database; their watches on fake time. */
function instances(options: { feed?: ChangeFeed; history?: number } = {}) {
  const assetStore = new MemoryAssetStore(options.history === undefined ? {} : { history: options.history });
  const blobStore = new MemoryBlobStore();
  const fake = createClock(Date.parse('2024-05-01T12:00:00.000Z'));
  const watchTime = timeSourceOf(fake);
  const make = () => setup({ assetStore, blobStore, watchTime, feed: options.feed }).service;
  return { a: make(), b: make(), fake, assetStore };
}

/** What a watch yielded, short: `synced@1`, `asset.created@2`. */
function kinds(events: readonly AssetWatchEvent[]): string[] {
  return events.map((event) => `${event.type === 'change' ? event.change.type : event.type}@${event.revision}`);
}

/** Follows a watch into `events` until `stop` aborts; `following` settles when it has ended, with its failure if it failed. */
function follow(service: AssetService, options: Omit<WatchAssetsOptions, 'signal'> = {}, principal = alice) {
  const stop = new AbortController();
  const events: AssetWatchEvent[] = [];
  const following = (async () => {
    for await (const event of service.watch(principal, { ...options, signal: stop.signal })) events.push(event);
  })();
  const until = (count: number) =>
    eventually(() => events.length >= count, { timeout: 10_000, interval: 5, message: `${count} events, had ${kinds(events).join(' ')}` });
  return { events, following, until, stop: () => (stop.abort(), following) };
}

test('from now: synced at the current revision, then every change through another instance in order; a batch delete is one revision', async (t) => {
  const { a, b, fake } = instances({ feed: new LoopbackChangeFeed() });
  const first = await a.upload(alice, { body: body('one') });
  const watch = follow(b);
  await fake.tickAsync(0);
  await watch.until(1);
  t.deepEqual(kinds(watch.events), ['synced@1']);
  const second = await a.upload(alice, { body: body('two') });
  await a.replace(alice, first.id, { body: body('one, again') });
  await a.update(alice, second.id, { visibility: 'private' });
  await a.batchDelete(alice, [first.id, second.id]);
  await watch.until(6);
  t.deepEqual(kinds(watch.events), [
    'synced@1',
    'asset.created@2',
    'asset.replaced@3',
    'asset.updated@4',
    'asset.deleted@5',
    'asset.deleted@5',
  ]);
  const [, created, replaced, , deleted] = watch.events;
  t.is(created?.type === 'change' && created.change.asset?.id, second.id);
  t.like(replaced?.type === 'change' ? replaced.change : {}, { assetId: first.id, actor: 'alice', previous: { size: 3 } });
  t.is(deleted?.type === 'change' && deleted.change.asset, null);
  await watch.stop();
});

test('another workspace changes nothing a watcher sees', async (t) => {
  const { a, b, fake } = instances({ feed: new LoopbackChangeFeed() });
  const watch = follow(b);
  await fake.tickAsync(0);
  await a.upload(bob, { body: body("bob's") });
  await a.upload(alice, { body: body("alice's") });
  await watch.until(2);
  t.deepEqual(kinds(watch.events), ['synced@0', 'asset.created@1']);
  await watch.stop();
});

test('without a feed a change through another instance arrives at the next poll, 250 ms after the wait began, not a ms sooner', async (t) => {
  const { a, b, fake } = instances();
  const watch = follow(b);
  await fake.tickAsync(0);
  await watch.until(1);
  await a.upload(alice, { body: body('elsewhere') });
  await fake.tickAsync(249);
  t.deepEqual(kinds(watch.events), ['synced@0'], 'not polled yet at 249 ms');
  await fake.tickAsync(1);
  await watch.until(2);
  t.deepEqual(kinds(watch.events), ['synced@0', 'asset.created@1']);
  await watch.stop();
});

test('a write through the watching instance itself wakes its watcher without a poll', async (t) => {
  const { a, fake } = instances();
  const watch = follow(a);
  await fake.tickAsync(0);
  await watch.until(1);
  await a.upload(alice, { body: body('here') });
  await watch.until(2);
  t.deepEqual(kinds(watch.events), ['synced@0', 'asset.created@1']);
  await watch.stop();
});

test('from a revision: a heartbeat at once when current, else the changes after it; reset when they are no longer kept or never were', async (t) => {
  const { a, fake } = instances({ history: 2 });
  for (const text of ['1', '2', '3', '4']) await a.upload(alice, { body: body(text) });

  const current = follow(a, { sinceRevision: 4 });
  await fake.tickAsync(0);
  await current.until(1);
  t.deepEqual(kinds(current.events), ['heartbeat@4']);
  await current.stop();

  const behind = follow(a, { sinceRevision: 2 });
  await fake.tickAsync(0);
  await behind.until(2);
  t.deepEqual(kinds(behind.events), ['asset.created@3', 'asset.created@4']);
  await behind.stop();

  for (const sinceRevision of [1, 0, 9]) {
    const gone = follow(a, { sinceRevision });
    await fake.tickAsync(0);
    await gone.until(1);
    await a.upload(alice, { body: body(`after ${sinceRevision}`) });
    await gone.until(2);
    const head = await a.revision(alice);
    t.deepEqual(kinds(gone.events), [`reset@${head - 1}`, `asset.created@${head}`], `from ${sinceRevision}`);
    await gone.stop();
  }
});

test('refused: a revision that is not a whole number from 0, and a caller without assets:read', async (t) => {
  const { a } = instances();
  for (const sinceRevision of [-1, 1.5, Number.NaN]) {
    const error = await t.throwsAsync(follow(a, { sinceRevision }).following, { instanceOf: SwitchyardError });
    t.is(error?.code, 'invalid_argument');
  }
  const error = await t.throwsAsync(follow(a, {}, principalWith('assets:write')).following, { instanceOf: SwitchyardError });
  t.is(error?.code, 'permission_denied');
});

test('an idle watch sends a heartbeat every 15,000 ms, not a ms sooner; aborting ends it', async (t) => {
  const { a, fake } = instances();
  const watch = follow(a);
  await fake.tickAsync(0);
  await watch.until(1);
  await fake.tickAsync(14_999);
  t.deepEqual(kinds(watch.events), ['synced@0'], 'none at 14,999 ms');
  await fake.tickAsync(1);
  await watch.until(2);
  t.deepEqual(kinds(watch.events), ['synced@0', 'heartbeat@0']);
  await fake.tickAsync(14_999);
  t.is(watch.events.length, 2);
  await fake.tickAsync(1);
  await watch.until(3);
  await watch.stop();
  await fake.tickAsync(60_000);
  t.deepEqual(kinds(watch.events), ['synced@0', 'heartbeat@0', 'heartbeat@0'], 'nothing after the abort');
});
