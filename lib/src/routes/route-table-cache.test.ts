import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import type { NewRouteRecord, RouteRecord } from '../ports/route-store.js';
import { RouteTableCache } from './route-table-cache.js';

/** The memory store, counting how often tables are rebuilt (one `list` per build) and able to fail once. */
class CountingStore extends MemoryRouteStore {
  lists = 0;
  failNextList = false;
  override async list(workspace: string): Promise<RouteRecord[]> {
    this.lists++;
    if (this.failNextList) {
      this.failNextList = false;
      throw new SwitchyardError('unavailable', 'database down');
    }
    return super.list(workspace);
  }
}

let serial = 0;
function record(workspace: string, path: string, shape = path): NewRouteRecord {
  serial++;
  return {
    id: `rt_${String(serial).padStart(26, '0')}`,
    workspace,
    method: 'GET',
    path,
    owner: '',
    shape,
    middleware: [],
    handler: 'h',
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

test('builds a table once and reuses it while the route count is unchanged', async (t) => {
  const store = new CountingStore();
  await store.insert(record('w', '/a'));
  const cache = new RouteTableCache(store, 10);
  const first = await cache.tableFor('w');
  t.is(await cache.tableFor('w'), first);
  t.is(store.lists, 1);
  t.is(first.match('GET', '/a')?.route.path, '/a');
});

test('rebuilds after a route is added', async (t) => {
  const store = new CountingStore();
  const cache = new RouteTableCache(store, 10);
  t.is((await cache.tableFor('w')).match('GET', '/a'), undefined);
  await store.insert(record('w', '/a'));
  t.is((await cache.tableFor('w')).match('GET', '/a')?.route.path, '/a');
  t.is(store.lists, 2);
});

test('workspaces have separate tables', async (t) => {
  const store = new CountingStore();
  await store.insert(record('one', '/a'));
  const cache = new RouteTableCache(store, 10);
  t.truthy((await cache.tableFor('one')).match('GET', '/a'));
  t.is((await cache.tableFor('two')).match('GET', '/a'), undefined);
});

test('concurrent lookups of a stale workspace share one rebuild', async (t) => {
  const store = new CountingStore();
  await store.insert(record('w', '/a'));
  const cache = new RouteTableCache(store, 10);
  const tables = await Promise.all([cache.tableFor('w'), cache.tableFor('w'), cache.tableFor('w')]);
  t.is(store.lists, 1);
  t.is(tables[0], tables[2]);
});

test('drops the least recently used workspace past its capacity', async (t) => {
  const store = new CountingStore();
  const cache = new RouteTableCache(store, 2);
  await cache.tableFor('a');
  await cache.tableFor('b');
  await cache.tableFor('a'); // a is now the most recent
  await cache.tableFor('c'); // evicts b
  t.is(cache.size, 2);
  t.is(store.lists, 3);
  await cache.tableFor('a');
  t.is(store.lists, 3);
  await cache.tableFor('b');
  t.is(store.lists, 4);
});

test('a failed build is not cached', async (t) => {
  const store = new CountingStore();
  await store.insert(record('w', '/a'));
  const cache = new RouteTableCache(store, 10);
  store.failNextList = true;
  const error = await t.throwsAsync(cache.tableFor('w'), { instanceOf: SwitchyardError });
  t.is(error.code, 'unavailable');
  t.truthy((await cache.tableFor('w')).match('GET', '/a'));
});

test('stored routes that do not compile are internal, not the caller’s invalid_argument', async (t) => {
  const store = new CountingStore();
  await store.insert(record('w', 'no-slash'));
  const error = await t.throwsAsync(new RouteTableCache(store, 10).tableFor('w'), { instanceOf: SwitchyardError });
  t.is(error.code, 'internal');
});

test('refuses a capacity that is not a positive integer', (t) => {
  t.throws(() => new RouteTableCache(new MemoryRouteStore(), 0), { instanceOf: RangeError });
});
