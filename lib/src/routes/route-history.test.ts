import test from 'ava';
import { createPrincipal } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { createUlidSource } from '../ids.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import { createRouteService } from './route-service.js';
import { SyncedRouteTable } from './synced-route-table.js';
import type { Route, RouteEvent, RouteService } from './types.js';

const NOW = new Date('2025-06-07T08:09:10.111Z');
const alice = createPrincipal('alice', 'acme', ['routes:read', 'routes:write']);
const reader = createPrincipal('rita', 'acme', ['routes:read']);

function setup(history?: number) {
  const store = new MemoryRouteStore(history === undefined ? {} : { history });
  return createRouteService({ store, clock: { now: () => new Date(NOW) }, ids: createUlidSource(), watchPollMs: 10 });
}

const route = (method: string, path: string, handler = 'h') => ({ method, path, handler });
const lines = (routes: readonly Route[]) => routes.map((r) => `${r.method} ${r.path} ${r.handler} ${r.owner}`).sort();

async function allRoutes(service: RouteService, atRevision?: number, pageSize = 1000): Promise<Route[]> {
  const routes: Route[] = [];
  let pageToken = '';
  do {
    const page = await service.list(reader, { atRevision, pageSize, pageToken });
    routes.push(...page.routes);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return routes;
}

/** Revision 1: two routes by apply; 2: a third; 3: one changed; 4: one deleted. */
async function history(service: RouteService) {
  await service.apply(alice, { routes: [route('GET', '/a'), route('GET', '/b')] });
  const c = await service.create(alice, { ...route('GET', '/c'), owner: 'team' });
  const [a] = (await service.list(reader, {})).routes;
  await service.update(alice, a!.id, { handler: 'h2' });
  await service.delete(alice, c.id);
}

test('the change log pages by whole revisions, with who, owner, kind, before and after', async (t) => {
  const service = setup();
  await history(service);
  const first = await service.changes(reader, { pageSize: 1 });
  // Revision 1 holds two changes: a page never splits it.
  t.deepEqual(
    first.changes.map((c) => `${c.revision} ${c.kind} ${c.after?.path} ${c.actor}`),
    ['1 create /a alice', '1 create /b alice'],
  );
  t.not(first.nextPageToken, '');
  const rest = await service.changes(reader, { pageToken: first.nextPageToken, pageSize: 10 });
  t.deepEqual(
    rest.changes.map((c) => `${c.revision} ${c.kind} ${c.owner} ${c.before?.handler ?? '-'} ${c.after?.handler ?? '-'}`),
    ['2 create team - h', '3 update  h h2', '4 delete team h -'],
  );
  t.is(rest.nextPageToken, '');
  t.deepEqual(rest.changes[0]?.time, NOW);
  const since = await service.changes(reader, { sinceRevision: 3 });
  t.deepEqual(
    since.changes.map((c) => c.revision),
    [4],
  );
  t.is(since.nextPageToken, '');
});

test('changes refuses a revision ahead of the table, a foreign token, and a revision past the kept history (saying how far back it goes)', async (t) => {
  const service = setup(2);
  await history(service);
  const ahead = await t.throwsAsync(service.changes(reader, { sinceRevision: 5 }), { instanceOf: SwitchyardError });
  t.is(ahead.code, 'invalid_argument');
  t.regex(ahead.message, /revision 4/);
  const token = await t.throwsAsync(service.changes(reader, { pageToken: 'bm9wZQ' }), { instanceOf: SwitchyardError });
  t.is(token.details[0]?.field, 'pageToken');
  const old = await t.throwsAsync(service.changes(reader, { sinceRevision: 1 }), { instanceOf: SwitchyardError });
  t.is(old.code, 'invalid_argument');
  t.is(old.details[0]?.field, 'sinceRevision');
  t.regex(old.message, /goes back to revision 2\b/);
  t.deepEqual(
    (await service.changes(reader, { sinceRevision: 2 })).changes.map((c) => c.revision),
    [3, 4],
  );
  t.deepEqual(
    (await service.changes(reader, {})).changes.map((c) => c.revision),
    [3, 4],
    'by default, from the oldest kept',
  );
});

test('list at a revision is the table as it was then, paged, its tokens bound to that revision', async (t) => {
  const service = setup();
  await history(service);
  t.deepEqual(lines(await allRoutes(service, 0)), []);
  t.deepEqual(lines(await allRoutes(service, 1)), ['GET /a h ', 'GET /b h ']);
  t.deepEqual(lines(await allRoutes(service, 2, 1)), ['GET /a h ', 'GET /b h ', 'GET /c h team']);
  t.deepEqual(lines(await allRoutes(service, 3)), ['GET /a h2 ', 'GET /b h ', 'GET /c h team']);
  t.deepEqual(lines(await allRoutes(service, 4)), lines(await allRoutes(service)));
  const page = await service.list(reader, { atRevision: 2, pageSize: 1 });
  const moved = await t.throwsAsync(service.list(reader, { atRevision: 3, pageSize: 1, pageToken: page.nextPageToken }), {
    instanceOf: SwitchyardError,
  });
  t.is(moved.details[0]?.field, 'pageToken');
  const ahead = await t.throwsAsync(service.list(reader, { atRevision: 9 }), { instanceOf: SwitchyardError });
  t.is(ahead.details[0]?.field, 'atRevision');
  const bad = await t.throwsAsync(service.list(reader, { atRevision: -1 }), { instanceOf: SwitchyardError });
  t.is(bad.code, 'invalid_argument');
});

test('list at a revision before the kept history is invalid_argument naming the oldest one kept', async (t) => {
  const service = setup(2);
  await history(service);
  const error = await t.throwsAsync(service.list(reader, { atRevision: 1 }), { instanceOf: SwitchyardError });
  t.is(error.code, 'invalid_argument');
  t.is(error.details[0]?.field, 'atRevision');
  t.regex(error.message, /goes back to revision 2\b/);
  t.deepEqual(lines(await allRoutes(service, 2)), ['GET /a h ', 'GET /b h ', 'GET /c h team']);
});

test('rollback makes one new revision whose table equals the old one, every owner included; again, nothing', async (t) => {
  const service = setup();
  await history(service);
  const dry = await service.rollback(alice, { revision: 1, dryRun: true });
  t.is(dry.revision, 4);
  t.is((await service.changes(reader, { sinceRevision: 4 })).changes.length, 0, 'a dry run writes nothing');
  const result = await service.rollback(alice, { revision: 1 });
  t.is(result.revision, 5);
  t.deepEqual(
    result.updated.map((u) => `${u.after.path} ${u.before.handler}->${u.after.handler}`),
    ['/a h2->h'],
  );
  t.is(result.unchanged, 1);
  t.deepEqual(lines(await allRoutes(service)), ['GET /a h ', 'GET /b h ']);
  t.deepEqual(
    (await service.changes(reader, { sinceRevision: 4 })).changes.map((c) => `${c.revision} ${c.kind}`),
    ['5 update'],
  );
  const back = await service.rollback(alice, { revision: 2 });
  t.deepEqual(lines(back.created), ['GET /c h team']);
  t.is(back.revision, 6);
  const same = await service.rollback(alice, { revision: 6 });
  t.is(same.revision, 6, 'the table already is as it was: no revision');
  const stale = await t.throwsAsync(service.rollback(alice, { revision: 1, expectedRevision: 5 }), { instanceOf: SwitchyardError });
  t.is(stale.code, 'aborted');
  t.is((await t.throwsAsync(service.rollback(reader, { revision: 1 }), { instanceOf: SwitchyardError })).code, 'permission_denied');
  const ahead = await t.throwsAsync(service.rollback(alice, { revision: 7 }), { instanceOf: SwitchyardError });
  t.is(ahead.details[0]?.field, 'revision');
});

test('a watch marks the changes of a revision before its last, and a synced table applies the revision whole', async (t) => {
  const service = setup();
  await service.create(alice, route('GET', '/x'));
  const controller = new AbortController();
  const events: RouteEvent[] = [];
  const table = new SyncedRouteTable();
  const seen: string[][] = [];
  table.onChange(() =>
    seen.push(
      table
        .routes()
        .map((r) => r.path)
        .sort(),
    ),
  );
  const watching = (async () => {
    for await (const event of service.watch(reader, { sinceRevision: 1, signal: controller.signal })) {
      events.push(event);
      table.apply(event);
      if (event.revision === 2 && !('moreInRevision' in event && event.moreInRevision)) controller.abort();
    }
  })();
  await service.apply(alice, { routes: [route('GET', '/a'), route('GET', '/b'), route('GET', '/c')] });
  await watching;
  t.deepEqual(
    events
      .filter((e) => e.type === 'upsert')
      .map((e) => `${e.revision} ${e.type === 'upsert' && e.route.path} ${e.moreInRevision === true}`),
    ['2 /a true', '2 /b true', '2 /c false'],
  );
  // The watch began after revision 1 (no snapshot): the table holds what came since.
  t.deepEqual(
    seen,
    [
      ['/a', '/b', '/c'],
      ['/a', '/b', '/c'],
      ['/a', '/b', '/c'],
    ],
    'each change heard once the revision is whole',
  );
  t.is(table.revision, 2);
});

test('a synced table drops a revision cut short, and takes it whole when it comes again', (t) => {
  const table = new SyncedRouteTable();
  const at = (revision: number, path: string, more?: boolean): RouteEvent => ({
    type: 'upsert',
    revision,
    moreInRevision: more,
    route: { id: `rt_${path}`, method: 'GET', path, middleware: [], handler: 'h', owner: '', createdAt: NOW, updatedAt: NOW, revision },
  });
  table.apply({ type: 'reset', revision: 1 });
  table.apply(at(1, '/x'));
  table.apply({ type: 'synced', revision: 1 });
  table.apply(at(2, '/a', true));
  t.is(table.match('GET', '/a'), undefined, 'half a revision is never matched');
  table.abandonSnapshot();
  table.apply(at(2, '/a', true));
  // Sent again from its start without an abandon (a source that resumed on its own): held once, not twice.
  table.apply(at(2, '/a', true));
  const heard: string[] = [];
  table.onChange((event) => heard.push(event.type === 'upsert' ? event.route.path : event.type));
  table.apply(at(2, '/b'));
  t.deepEqual(heard, ['/a', '/b']);
  t.is(table.revision, 2);
  t.truthy(table.match('GET', '/a'));
  t.truthy(table.match('GET', '/b'));
});
