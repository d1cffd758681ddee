import test from 'ava';
import { createPrincipal } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { createUlidSource } from '../ids.js';
import { createClock } from '@sinonjs/fake-timers';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import { eventually } from '../testing/eventually.js';
import { timeSourceOf } from '../testing/fake-time.js';
import { createRouteService } from './route-service.js';
import { SyncedRouteTable } from './synced-route-table.js';
import type { RouteEvent, RouteService } from './types.js';

const alice = createPrincipal('alice', 'acme', ['routes:read', 'routes:write']);
const bob = createPrincipal('bob', 'other', ['routes:read', 'routes:write']);

/** Two service instances over one store, as two processes over one database. */
function setup(history?: number) {
  const store = new MemoryRouteStore(history === undefined ? {} : { history });
  const make = () =>
    createRouteService({ store, clock: { now: () => new Date() }, ids: createUlidSource(), watchPollMs: 20, watchHeartbeatMs: 200 });
  return { store, a: make(), b: make() };
}

/** Collects a watch's events until `until` says stop, or 3 s pass. */
async function collect(
  service: RouteService,
  since: number,
  until: (events: RouteEvent[]) => boolean,
  act?: () => Promise<void>,
): Promise<RouteEvent[]> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 3_000);
  const events: RouteEvent[] = [];
  const acting = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    await act?.();
  })();
  for await (const event of service.watch(alice, { sinceRevision: since, signal: stop.signal })) {
    events.push(event);
    if (until(events)) break;
  }
  clearTimeout(timer);
  await acting;
  return events;
}

const kinds = (events: RouteEvent[]) => events.map((event) => `${event.type}@${event.revision}`);

test('list pages oldest first; update validates like create and refuses a taken shape; delete ends the id', async (t) => {
  const { a } = setup();
  const created = [];
  for (const path of ['/a', '/b', '/c', '/d', '/e']) created.push(await a.create(alice, { method: 'GET', path, handler: 'h' }));
  const first = await a.list(alice, { pageSize: 2 });
  t.deepEqual(
    first.routes.map((route) => route.path),
    ['/a', '/b'],
  );
  const rest = await a.list(alice, { pageSize: 10, pageToken: first.nextPageToken });
  t.deepEqual([rest.routes.map((route) => route.path), rest.nextPageToken], [['/c', '/d', '/e'], '']);
  await t.throwsAsync(a.list(bob, { pageToken: first.nextPageToken }), { instanceOf: SwitchyardError, message: /another workspace/ });
  await t.throwsAsync(a.list(alice, { pageSize: 1001 }), { message: /pageSize/ });

  const updated = await a.update(alice, created[0]!.id, { path: '/a/:id', middleware: ['auth'] });
  t.like(updated, { id: created[0]!.id, method: 'GET', path: '/a/:id', middleware: ['auth'], handler: 'h', revision: 6 });
  t.true(updated.updatedAt >= updated.createdAt);
  const taken = await t.throwsAsync(a.update(alice, created[1]!.id, { path: '/a/:other' }), { instanceOf: SwitchyardError });
  t.is(taken?.code, 'already_exists');
  t.is(
    taken?.message,
    `route ${created[0]!.id} (GET /a/:id) already has this method and path shape`,
    'the refusal names the route in the way',
  );
  t.deepEqual(taken?.details, [
    { field: 'path', reason: `duplicate method and path shape: taken by route ${created[0]!.id} (GET /a/:id)` },
  ]);
  const bad = await t.throwsAsync(a.update(alice, created[1]!.id, { method: 'FETCH', path: 'nope' }), { instanceOf: SwitchyardError });
  t.deepEqual(
    bad?.details.map((detail) => detail.field),
    ['method', 'path'],
    'every bad field at once',
  );
  await t.throwsAsync(a.update(bob, created[1]!.id, { path: '/x' }), { message: /not found/ });
  await t.throwsAsync(a.update(alice, created[1]!.id, null as never), { message: /object/ });

  await a.delete(alice, created[1]!.id);
  await t.throwsAsync(a.get(alice, created[1]!.id), { message: /not found/ });
  await t.throwsAsync(a.delete(alice, created[1]!.id), { message: /not found/ });
  t.is((await a.match(alice, { method: 'GET', path: '/a/7' })).route.id, created[0]!.id, 'matches follow updates');
  await t.throwsAsync(a.match(alice, { method: 'GET', path: '/b' }), { message: /no route matches/ }, 'and deletes');
});

test('a watch from 0 is a snapshot then every change, made through another instance, in order', async (t) => {
  const { a, b } = setup();
  const existing = await a.create(alice, { method: 'GET', path: '/existing', handler: 'h' });
  await a.create(bob, { method: 'GET', path: '/bobs', handler: 'h' });
  let id = '';
  const events = await collect(
    b,
    0,
    (seen) => seen.some((event) => event.type === 'delete'),
    async () => {
      id = (await a.create(alice, { method: 'POST', path: '/new', handler: 'h' })).id;
      await a.update(alice, id, { handler: 'h2' });
      await a.delete(alice, id);
    },
  );
  // A heartbeat (200 ms here) may slip in on a starved machine; it is no change.
  const changes = events.filter((event) => event.type !== 'heartbeat');
  t.deepEqual(kinds(changes), ['reset@1', 'upsert@1', 'synced@1', 'upsert@2', 'upsert@3', 'delete@4']);
  t.is(changes[1]?.type === 'upsert' ? changes[1].route.id : '', existing.id, "the snapshot holds the workspace's routes only");
  t.is(changes[4]?.type === 'upsert' ? changes[4].route.handler : '', 'h2');
});

test('a watch from a known revision gets only later changes (a heartbeat first when current); from a trimmed or unknown one a snapshot', async (t) => {
  const { a } = setup(3);
  for (const path of ['/1', '/2', '/3', '/4', '/5']) await a.create(alice, { method: 'GET', path, handler: 'h' });
  t.deepEqual(kinds(await collect(a, 3, (seen) => seen.length === 2)), ['upsert@4', 'upsert@5']);
  t.deepEqual(kinds(await collect(a, 5, (seen) => seen.length === 1)), ['heartbeat@5'], 'current: a heartbeat at once');
  t.deepEqual(kinds(await collect(a, 1, (seen) => seen.at(-1)?.type === 'synced')).at(0), 'reset@5', 'history trimmed past revision 1');
  t.deepEqual(kinds(await collect(a, 99, (seen) => seen.at(-1)?.type === 'synced')).at(0), 'reset@5', 'a revision the workspace never had');
  await t.throwsAsync(
    async () => {
      for await (const _ of a.watch(alice, { sinceRevision: -1 })) break;
    },
    { message: /sinceRevision/ },
  );
  const reader = createPrincipal('r', 'acme', ['routes:write']);
  await t.throwsAsync(
    async () => {
      for await (const _ of a.watch(reader)) break;
    },
    { message: /routes:read/ },
  );
});

/** Follows a watch into `events` until `stop` aborts; `following` settles when the watch has ended. */
function follow(service: RouteService, stop: AbortController) {
  const events: RouteEvent[] = [];
  const following = (async () => {
    for await (const event of service.watch(alice, { signal: stop.signal })) events.push(event);
  })();
  return { events, following };
}

test('an idle watch sends a heartbeat every heartbeatMs, not a ms sooner; aborting ends it', async (t) => {
  const fake = createClock(Date.parse('2024-05-01T12:00:00.000Z'));
  const time = timeSourceOf(fake);
  const service = createRouteService({
    store: new MemoryRouteStore(),
    clock: time,
    time,
    ids: createUlidSource(),
    watchPollMs: 20,
    watchHeartbeatMs: 200,
  });
  const stop = new AbortController();
  const { events, following } = follow(service, stop);
  await fake.tickAsync(0);
  t.deepEqual(kinds(events), ['reset@0', 'synced@0']);
  await fake.tickAsync(199);
  t.deepEqual(kinds(events), ['reset@0', 'synced@0'], 'none at 199 ms');
  await fake.tickAsync(1);
  t.deepEqual(kinds(events), ['reset@0', 'synced@0', 'heartbeat@0'], 'one at 200 ms');
  await fake.tickAsync(199);
  t.is(events.length, 3);
  await fake.tickAsync(1);
  t.deepEqual(kinds(events), ['reset@0', 'synced@0', 'heartbeat@0', 'heartbeat@0'], 'the next at 400 ms');
  stop.abort();
  await following;
  await fake.tickAsync(1_000);
  t.is(events.length, 4, 'nothing after the abort');
});

test('property: after random creates, updates and deletes (conflicts included) the synced table equals the listed one at the same revision', async (t) => {
  const { store, a, b } = setup(50);
  const table = new SyncedRouteTable();
  const stop = new AbortController();
  const following = table.follow(b.watch(alice, { signal: stop.signal }));
  const ids: string[] = [];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
  let checks = 0;
  for (let step = 1; step <= 400; step++) {
    const path = `/p${random(20)}/:x`;
    const action = random(3);
    try {
      if (action === 0 || ids.length === 0) ids.push((await a.create(alice, { method: 'GET', path, handler: 'h' })).id);
      else if (action === 1) await a.update(alice, ids[random(ids.length)]!, { path, handler: `h${step}` });
      else await a.delete(alice, ids.splice(random(ids.length), 1)[0]!);
    } catch (error) {
      if (!(error instanceof SwitchyardError) || !['already_exists', 'not_found'].includes(error.code)) throw error;
    }
    if (step % 40 !== 0) continue;
    // The table as ListRoutes reads it, and the revision it is the table of.
    const { revision } = await store.snapshot('acme');
    const listed = (await a.list(alice, { pageSize: 1000 })).routes;
    await eventually(() => table.revision >= revision, {
      timeout: 10_000,
      interval: 5,
      message: `step ${step}: the watcher at revision ${revision}`,
    });
    t.is(table.revision, revision, `step ${step}: the watcher reached revision ${revision}`);
    t.deepEqual(byId(table.routes()), byId(listed), `step ${step}: the same table`);
    for (const route of listed) t.is(table.match('GET', route.path.replace(':x', '1'))?.route.id, route.id);
    checks += 1;
  }
  t.is(checks, 10);
  stop.abort();
  await following;
});

function byId(routes: readonly { id: string }[]) {
  return [...routes].sort((x, y) => (x.id < y.id ? -1 : 1));
}

test('two instances on one change feed: a write through one reaches a watcher on the other without polling the store', async (t) => {
  const store = new MemoryRouteStore();
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'revision') return (workspace: string) => (reads++, target.revision(workspace));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const feed = new LoopbackChangeFeed();
  const fake = createClock(Date.parse('2024-05-01T12:00:00.000Z'));
  const time = timeSourceOf(fake);
  const make = () =>
    createRouteService({
      store: counted,
      clock: time,
      time,
      ids: createUlidSource(),
      watchPollMs: 20,
      watchFeed: feed,
      watchSafetyPollMs: 60_000,
      watchHeartbeatMs: 5_000,
    });
  const [a, b] = [make(), make()];
  const stop = new AbortController();
  const { events, following } = follow(b, stop);
  await fake.tickAsync(0);
  t.is(reads, 1, 'one read as the workspace starts being watched');
  await fake.tickAsync(2_000);
  t.is(reads, 1, 'none in 2 s of watching with the feed up (polling: 100)');
  await a.create(alice, { method: 'GET', path: '/x', handler: 'h' });
  await fake.tickAsync(0);
  t.deepEqual(kinds(events), ['reset@0', 'synced@0', 'upsert@1']);
  t.is(reads, 1, 'the message carried the revision');
  stop.abort();
  await following;
});
