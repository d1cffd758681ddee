import test from 'ava';
import { createPrincipal } from './auth/principal.js';
import { SwitchyardError } from './errors.js';
import { LoopbackChangeFeed, MemoryAssetStore, MemoryBlobStore, MemoryRouteStore } from './memory/index.js';
import type { RouteEvent } from './routes/types.js';
import { createSwitchyard, type SwitchyardOptions } from './switchyard.js';

const alice = createPrincipal('alice', 'acme', ['routes:read', 'routes:write']);

test('routeWatch.feed: two cores over one store and one feed; a write through one wakes a watcher of the other at once', async (t) => {
  const routeStore = new MemoryRouteStore();
  const feed = new LoopbackChangeFeed();
  // Polling every minute: only the feed can bring the change in time.
  const options: SwitchyardOptions = {
    routeStore,
    assetStore: new MemoryAssetStore(),
    blobStore: new MemoryBlobStore(),
    cdnUrl: 'http://cdn.test/files',
    routeWatch: { feed, pollMs: 60_000, safetyPollMs: 60_000 },
  };
  const [a, b] = [createSwitchyard(options), createSwitchyard(options)];
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 3_000);
  const events: RouteEvent[] = [];
  for await (const event of b.routes.watch(alice, { signal: stop.signal })) {
    events.push(event);
    if (event.type === 'synced') await a.routes.create(alice, { method: 'GET', path: '/x', handler: 'h' });
    if (event.type === 'upsert') break;
  }
  clearTimeout(timer);
  t.deepEqual(
    events.map((event) => `${event.type}@${event.revision}`),
    ['reset@0', 'synced@0', 'upsert@1'],
  );
});

test('routeWatch.safetyPollMs must be a positive integer', (t) => {
  const base = {
    routeStore: new MemoryRouteStore(),
    assetStore: new MemoryAssetStore(),
    blobStore: new MemoryBlobStore(),
    cdnUrl: 'http://cdn.test/files',
  };
  for (const safetyPollMs of [0, -1, 1.5, Number.NaN]) {
    const error = t.throws(() => createSwitchyard({ ...base, routeWatch: { safetyPollMs } }), { instanceOf: SwitchyardError });
    t.is(error?.code, 'invalid_argument');
  }
});
