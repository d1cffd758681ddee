import { createUlidSource } from '../ids.js';
import type { RouteRecord, RouteStore } from '../ports/route-store.js';
import { assertRejectsWithCode, defineCase, tally, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';
import type { Check } from './assertions.js';

const ids = createUlidSource();
const BASE_TIME = Date.parse('2024-03-04T05:06:07.089Z');

/** A valid route record; fields can be overridden. Times carry milliseconds on purpose. */
export function sampleRoute(workspace: string, overrides: Partial<RouteRecord> = {}): RouteRecord {
  return {
    id: ids.next('route'),
    workspace,
    method: 'GET',
    path: '/users/:id',
    shape: '/users/:',
    middleware: ['auth', 'rate-limit', 'audit.log'],
    handler: 'users.show',
    createdAt: new Date(BASE_TIME),
    ...overrides,
  };
}

/** Every field, spelled out, so `undefined` vs missing or `null` vs `undefined` differences show. */
function view(record: RouteRecord | undefined): unknown {
  if (!record) return record;
  return {
    id: record.id,
    workspace: record.workspace,
    method: record.method,
    path: record.path,
    shape: record.shape,
    middleware: [...record.middleware],
    handler: record.handler,
    createdAt: record.createdAt instanceof Date ? record.createdAt.toISOString() : `not a Date: ${String(record.createdAt)}`,
  };
}

function assertSameRoute(t: Check, actual: RouteRecord | undefined, expected: RouteRecord, what: string): void {
  t.deepEqual(view(actual), view(expected), what);
}

/** Registers the RouteStore contract tests (see `ports/route-store.ts`). */
export function routeStoreConformance(test: RegisterTest, options: ConformanceOptions<RouteStore>): void {
  const define = (title: string, body: (t: Check, store: RouteStore) => Promise<void>) =>
    defineCase(test, options, `RouteStore ${title}`, body);

  define('insert then get returns every field, times to the millisecond', async (t, store) => {
    const workspace = uniqueName();
    const full = sampleRoute(workspace, { createdAt: new Date('2031-12-31T23:59:59.999Z') });
    const bare = sampleRoute(workspace, { method: 'POST', path: '/', shape: '/', middleware: [], handler: 'root' });
    await store.insert(full);
    await store.insert(bare);
    assertSameRoute(t, await store.get(workspace, full.id), full, 'record with middleware');
    assertSameRoute(t, await store.get(workspace, bare.id), bare, 'record without middleware');
  });

  define('get sees only its own workspace; unknown ids are undefined', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleRoute(workspace);
    await store.insert(record);
    t.is(await store.get(uniqueName(), record.id), undefined, 'another workspace must not see the record');
    t.is(await store.get(workspace, ids.next('route')), undefined, 'unknown id');
  });

  define('same method and shape in one workspace is already_exists, whatever the parameter names', async (t, store) => {
    const workspace = uniqueName();
    await store.insert(sampleRoute(workspace, { path: '/users/:id', shape: '/users/:' }));
    await assertRejectsWithCode(t, store.insert(sampleRoute(workspace, { path: '/users/:uid', shape: '/users/:' })), 'already_exists', 'duplicate shape');
    t.is(await store.count(workspace), 1, 'the refused insert must store nothing');
  });

  define('same shape with another method, or in another workspace, is accepted', async (t, store) => {
    const workspace = uniqueName();
    const other = uniqueName();
    await store.insert(sampleRoute(workspace));
    await t.notThrowsAsync(store.insert(sampleRoute(workspace, { method: 'PUT' })), 'another method');
    await t.notThrowsAsync(store.insert(sampleRoute(workspace, { path: '/users/:id/posts', shape: '/users/:/posts' })), 'another shape');
    await t.notThrowsAsync(store.insert(sampleRoute(other)), 'same method and shape in another workspace');
    t.is(await store.count(workspace), 3);
    t.is(await store.count(other), 1);
  });

  define('concurrent inserts of one duplicate: exactly one succeeds, the rest are already_exists', async (t, store) => {
    const workspace = uniqueName();
    const attempts = Array.from({ length: 8 }, (_, i) => sampleRoute(workspace, { path: `/items/:p${i}`, shape: '/items/:', handler: `h${i}` }));
    const { fulfilled, rejectedCodes } = tally(await Promise.allSettled(attempts.map((record) => store.insert(record))));
    t.is(fulfilled.length, 1, 'exactly one insert wins');
    t.deepEqual(rejectedCodes, Array(attempts.length - 1).fill('already_exists'));
    const stored = await store.list(workspace);
    t.is(stored.length, 1);
    t.is(await store.count(workspace), 1);
  });

  define('list returns the workspace records oldest first, and only them', async (t, store) => {
    const workspace = uniqueName();
    const records = [0, 1, 2, 3, 4].map((i) =>
      sampleRoute(workspace, { path: `/r${i}`, shape: `/r${i}`, createdAt: new Date(BASE_TIME + i * 1001) }),
    );
    // Inserted out of order: the order comes from createdAt, not from insertion.
    for (const i of [3, 0, 4, 1, 2]) await store.insert(records[i]!);
    await store.insert(sampleRoute(uniqueName()));
    const listed = await store.list(workspace);
    t.deepEqual(listed.map(view), records.map(view));
    t.deepEqual(await store.list(uniqueName()), [], 'an unknown workspace lists nothing');
  });

  define('count starts at 0 and grows by one per stored route only', async (t, store) => {
    const workspace = uniqueName();
    t.is(await store.count(workspace), 0);
    await store.insert(sampleRoute(workspace, { path: '/a', shape: '/a' }));
    t.is(await store.count(workspace), 1);
    await store.insert(sampleRoute(workspace, { path: '/b', shape: '/b' }));
    await store.insert(sampleRoute(uniqueName(), { path: '/b', shape: '/b' }));
    t.is(await store.count(workspace), 2, 'other workspaces do not count');
    await store.insert(sampleRoute(workspace, { path: '/b', shape: '/b' })).catch(() => undefined);
    t.is(await store.count(workspace), 2, 'a refused duplicate does not count');
  });

  define('stored records do not change when the caller mutates its objects', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleRoute(workspace, { middleware: ['a', 'b'] });
    const expected = view(record);
    const mutable = { ...record, middleware: [...record.middleware], createdAt: new Date(record.createdAt) };
    await store.insert(mutable);
    mutable.middleware.push('c');
    mutable.createdAt.setTime(0);
    t.deepEqual(view(await store.get(workspace, record.id)), expected);
  });

  if (options.createUnavailable) {
    defineCase(test, options, 'RouteStore unreachable backend: every operation is unavailable', async (t, store) => {
      const workspace = uniqueName();
      await assertRejectsWithCode(t, store.insert(sampleRoute(workspace)), 'unavailable', 'insert');
      await assertRejectsWithCode(t, store.get(workspace, ids.next('route')), 'unavailable', 'get');
      await assertRejectsWithCode(t, store.list(workspace), 'unavailable', 'list');
      await assertRejectsWithCode(t, store.count(workspace), 'unavailable', 'count');
    }, options.createUnavailable);
  }
}
