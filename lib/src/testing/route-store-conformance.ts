import { createUlidSource } from '../ids.js';
import type { NewRouteRecord, RouteRecord, RouteStore } from '../ports/route-store.js';
import { assertRejectsWithCode, defineCase, tally, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';
import type { Check } from './assertions.js';
import { routeHistoryConformance } from './route-history-conformance.js';
import { routeRevisionConformance } from './route-revision-conformance.js';
import { routeView, sampleRoute, SAMPLE_ROUTE_TIME } from './route-samples.js';

export { sampleRoute } from './route-samples.js';

const ids = createUlidSource();
const BASE_TIME = SAMPLE_ROUTE_TIME;

function assertSameRoute(t: Check, actual: NewRouteRecord | undefined, expected: NewRouteRecord, what: string): void {
  t.deepEqual(routeView(actual), routeView(expected), what);
}

const revisionsOf = (records: readonly (RouteRecord | undefined)[]) => records.map((record) => record?.revision);

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
    await assertRejectsWithCode(
      t,
      store.insert(sampleRoute(workspace, { path: '/users/:uid', shape: '/users/:' })),
      'already_exists',
      'duplicate shape',
    );
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
    const attempts = Array.from({ length: 8 }, (_, i) =>
      sampleRoute(workspace, { path: `/items/:p${i}`, shape: '/items/:', handler: `h${i}` }),
    );
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
    t.deepEqual(listed.map(routeView), records.map(routeView));
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

  define('every write raises the revision by one and logs one change; refused writes change nothing', async (t, store) => {
    const workspace = uniqueName();
    t.is(await store.revision(workspace), 0, 'no write yet');
    t.deepEqual(await store.changesSince(workspace, 0, 10), [], 'nothing after revision 0');
    const a = await store.insert(sampleRoute(workspace, { path: '/a', shape: '/a' }));
    const b = await store.insert(sampleRoute(workspace, { path: '/b', shape: '/b', createdAt: new Date(BASE_TIME + 1) }));
    t.deepEqual(revisionsOf([a, b]), [1, 2], 'insert returns the record at its revision');
    await assertRejectsWithCode(t, store.insert(sampleRoute(workspace, { path: '/a', shape: '/a' })), 'already_exists', 'a duplicate');
    const updatedAt = new Date(BASE_TIME + 5000);
    const moved = await store.update(workspace, a.id, {
      method: 'POST',
      path: '/a2/:x',
      shape: '/a2/:',
      middleware: ['m'],
      handler: 'h2',
      owner: 'team-a',
      updatedAt,
    });
    t.deepEqual(
      routeView(moved),
      routeView({ ...a, method: 'POST', path: '/a2/:x', shape: '/a2/:', middleware: ['m'], handler: 'h2', owner: 'team-a', updatedAt }),
      'update writes the new definition, keeps id and createdAt',
    );
    t.is(moved?.revision, 3);
    await assertRejectsWithCode(
      t,
      store.update(workspace, a.id, { ...b, updatedAt }),
      'already_exists',
      "an update onto another route's method and shape",
    );
    t.is(await store.update(uniqueName(), a.id, { ...b, path: '/z', shape: '/z', updatedAt }), undefined, 'another workspace');
    t.is(await store.update(workspace, ids.next('route'), { ...b, path: '/z', shape: '/z', updatedAt }), undefined, 'an unknown id');
    t.deepEqual(await store.delete(workspace, b.id), { revision: 4 });
    t.is(await store.delete(workspace, b.id), undefined, 'a second delete');
    t.is(await store.delete(uniqueName(), a.id), undefined, 'another workspace');
    t.is(await store.get(workspace, b.id), undefined);
    const again = await store.insert(sampleRoute(workspace, { path: '/b', shape: '/b' }));
    t.is(again.revision, 5, "a deleted route's method and shape are free again");
    t.is(await store.revision(workspace), 5);
    const changes = await store.changesSince(workspace, 0, 100);
    t.deepEqual(
      changes?.map((change) => [change.revision, change.kind, change.id, change.after?.revision]),
      [
        [1, 'create', a.id, 1],
        [2, 'create', b.id, 2],
        [3, 'update', a.id, 3],
        [4, 'delete', b.id, undefined],
        [5, 'create', again.id, 5],
      ],
    );
    const third = changes?.[2];
    t.deepEqual(routeView(third?.after), routeView(moved), 'a change carries the record as written');
    t.deepEqual(routeView(third?.before), routeView(a), 'and the record before');
    t.deepEqual(
      (await store.changesSince(workspace, 3, 1))?.map((change) => change.revision),
      [4],
      'after a revision, at most limit',
    );
    t.deepEqual(await store.changesSince(workspace, 5, 10), [], 'nothing after the current revision');
    t.is(await store.changesSince(workspace, 6, 10), undefined, 'a revision the workspace never had');
    t.is(await store.revision(uniqueName()), 0, 'other workspaces have their own revision');
  });

  define('concurrent writes to one workspace get distinct, gap-free revisions, logged in order', async (t, store) => {
    const workspace = uniqueName();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => store.insert(sampleRoute(workspace, { path: `/c${i}`, shape: `/c${i}` }))),
    );
    const { fulfilled, rejectedCodes } = tally(results);
    t.deepEqual(rejectedCodes, []);
    t.deepEqual(
      fulfilled.map((record) => record.revision).sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
    const changes = (await store.changesSince(workspace, 0, 100)) ?? [];
    t.deepEqual(
      changes.map((change) => change.revision),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
    t.deepEqual(
      changes.map((change) => change.after?.id),
      [...fulfilled].sort((x, y) => x.revision - y.revision).map((record) => record.id),
    );
  });

  define('a change records the route before and after, its owner, and the actor and time of the write', async (t, store) => {
    const workspace = uniqueName();
    const at = (ms: number) => new Date(BASE_TIME + ms);
    const record = sampleRoute(workspace, { owner: 'team-a' });
    const created = await store.insert(record, { actor: 'alice', time: at(0) });
    t.is((await store.get(workspace, record.id))?.owner, 'team-a', 'the owner is stored');
    const update = { ...record, handler: 'users.show2', owner: 'team-b', updatedAt: at(10) };
    const updated = await store.update(workspace, record.id, update, { actor: 'bob', time: at(10) });
    t.is(updated?.owner, 'team-b', 'an update may change the owner');
    const untold = await store.update(workspace, record.id, { ...update, handler: 'users.show3', updatedAt: at(20) });
    await store.delete(workspace, record.id, { actor: 'carol', time: at(30) });
    const changes = (await store.changesSince(workspace, 0, 10)) ?? [];
    t.deepEqual(
      changes.map((change) => ({
        revision: change.revision,
        kind: change.kind,
        id: change.id,
        time: change.time.toISOString(),
        actor: change.actor,
        owner: change.owner,
        before: routeView(change.before),
        after: routeView(change.after),
      })),
      [
        {
          revision: 1,
          kind: 'create',
          id: record.id,
          time: at(0).toISOString(),
          actor: 'alice',
          owner: 'team-a',
          before: undefined,
          after: routeView(created),
        },
        {
          revision: 2,
          kind: 'update',
          id: record.id,
          time: at(10).toISOString(),
          actor: 'bob',
          owner: 'team-b',
          before: routeView(created),
          after: routeView(updated),
        },
        {
          revision: 3,
          kind: 'update',
          id: record.id,
          time: at(20).toISOString(),
          actor: '',
          owner: 'team-b',
          before: routeView(updated),
          after: routeView(untold),
        },
        {
          revision: 4,
          kind: 'delete',
          id: record.id,
          time: at(30).toISOString(),
          actor: 'carol',
          owner: 'team-b',
          before: routeView(untold),
          after: undefined,
        },
      ],
      'without an origin: no actor, and the time of the record written',
    );
    t.deepEqual(
      changes.map((change) => [change.after?.revision, change.before?.revision]),
      [
        [1, undefined],
        [2, 1],
        [3, 2],
        [undefined, 3],
      ],
      'before and after carry the revisions they were written at',
    );
  });

  define('snapshot is the records and the revision they are the table of; page cuts the list by cursor', async (t, store) => {
    const workspace = uniqueName();
    const records = [];
    for (let i = 0; i < 5; i++)
      records.push(
        await store.insert(sampleRoute(workspace, { path: `/p${i}`, shape: `/p${i}`, createdAt: new Date(BASE_TIME + (i % 2) * 1000) })),
      );
    const ordered = [...records].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1));
    const snapshot = await store.snapshot(workspace);
    t.is(snapshot.revision, 5);
    t.deepEqual(snapshot.records.map(routeView), ordered.map(routeView));
    t.deepEqual(
      (await store.page(workspace, undefined, 2)).map((record) => record.id),
      ordered.slice(0, 2).map((record) => record.id),
    );
    t.deepEqual(
      (await store.page(workspace, ordered[1], 2)).map((record) => record.id),
      ordered.slice(2, 4).map((record) => record.id),
      'after a cursor with the same createdAt as later records',
    );
    t.deepEqual(await store.page(workspace, ordered[4], 2), []);
    t.deepEqual(await store.page(uniqueName(), undefined, 2), []);
  });

  define("scopedSnapshot is the owner's records and those at the scope's keys, whoever owns them, with the revision", async (t, store) => {
    const workspace = uniqueName();
    const mine = await store.insert(sampleRoute(workspace, { owner: 'team-a', path: '/a/:id', shape: '/a/:' }));
    const alsoMine = await store.insert(sampleRoute(workspace, { owner: 'team-a', method: 'POST', path: '/a', shape: '/a' }));
    const theirsAtAKey = await store.insert(sampleRoute(workspace, { owner: 'team-b', path: '/b/:id', shape: '/b/:' }));
    await store.insert(sampleRoute(workspace, { owner: 'team-b', path: '/c/:id', shape: '/c/:' }));
    await store.insert(sampleRoute(workspace, { owner: 'team-b', method: 'PUT', path: '/a/:id', shape: '/a/:' }));
    await store.insert(sampleRoute(workspace, { owner: '', path: '/d', shape: '/d' }));
    await store.insert(sampleRoute(uniqueName(), { owner: 'team-a', path: '/e', shape: '/e' }));
    const scope = {
      owner: 'team-a',
      // '/b/:' for GET is team-b's; '/a/:' for DELETE and '/x' are no one's; the PUT route at '/a/:' is not asked for.
      keys: [
        { method: 'GET', shape: '/b/:' },
        { method: 'DELETE', shape: '/a/:' },
        { method: 'GET', shape: '/x' },
      ],
    };
    const expected = [mine, alsoMine, theirsAtAKey].map((record) => record.id).sort();
    if (store.scopedSnapshot === undefined) {
      // A store without it gives an apply its whole table, which must hold the same.
      const whole = await store.snapshot(workspace);
      t.deepEqual(
        whole.records
          .map((record) => record.id)
          .filter((id) => expected.includes(id))
          .sort(),
        expected,
      );
      return;
    }
    const scoped = await store.scopedSnapshot(workspace, scope);
    t.is(scoped.revision, 6);
    t.deepEqual(scoped.records.map((record) => record.id).sort(), expected);
    assertSameRoute(
      t,
      scoped.records.find((record) => record.id === theirsAtAKey.id),
      theirsAtAKey,
      'a record read in full',
    );
    t.deepEqual(await store.scopedSnapshot(uniqueName(), scope), { revision: 0, records: [] }, 'an unknown workspace');
    t.deepEqual(
      (await store.scopedSnapshot(workspace, { owner: '', keys: [] })).records.map((record) => record.owner),
      [''],
      'no keys: the owner only',
    );
  });

  define('stored records do not change when the caller mutates its objects', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleRoute(workspace, { middleware: ['a', 'b'] });
    const expected = routeView(record);
    const mutable = {
      ...record,
      middleware: [...record.middleware],
      createdAt: new Date(record.createdAt),
      updatedAt: new Date(record.updatedAt),
    };
    await store.insert(mutable);
    mutable.middleware.push('c');
    mutable.createdAt.setTime(0);
    t.deepEqual(routeView(await store.get(workspace, record.id)), expected);
  });

  routeRevisionConformance(define);
  routeHistoryConformance(define);

  if (options.createUnavailable) {
    defineCase(
      test,
      options,
      'RouteStore unreachable backend: every operation is unavailable',
      async (t, store) => {
        const workspace = uniqueName();
        await assertRejectsWithCode(t, store.insert(sampleRoute(workspace)), 'unavailable', 'insert');
        await assertRejectsWithCode(t, store.get(workspace, ids.next('route')), 'unavailable', 'get');
        await assertRejectsWithCode(t, store.list(workspace), 'unavailable', 'list');
        await assertRejectsWithCode(t, store.count(workspace), 'unavailable', 'count');
        await assertRejectsWithCode(t, store.revision(workspace), 'unavailable', 'revision');
        await assertRejectsWithCode(t, store.changesSince(workspace, 0, 10), 'unavailable', 'changesSince');
        await assertRejectsWithCode(t, store.delete(workspace, ids.next('route')), 'unavailable', 'delete');
        const origin = { actor: 'ci', time: new Date(BASE_TIME) };
        await assertRejectsWithCode(
          t,
          store.applyRevision({ workspace, delete: [], update: [], create: [sampleRoute(workspace)], origin }),
          'unavailable',
          'applyRevision',
        );
      },
      options.createUnavailable,
    );
  }
}
