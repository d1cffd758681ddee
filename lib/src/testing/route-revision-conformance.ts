import type { ErrorCode } from '../errors.js';
import { createUlidSource } from '../ids.js';
import type { RouteStore } from '../ports/route-store.js';
import type { Check } from './assertions.js';
import { assertRejectsWithCode, tally, uniqueName } from './conformance.js';
import { routeView as view, sampleRoute, SAMPLE_ROUTE_TIME } from './route-samples.js';

const ids = createUlidSource();
const BASE_TIME = SAMPLE_ROUTE_TIME;

/** The RouteStore contract of `applyRevision` (several writes as one revision) and of whole revisions in `changesSince`; part of routeStoreConformance. */
export function routeRevisionConformance(define: (title: string, body: (t: Check, store: RouteStore) => Promise<void>) => void): void {
  define('applyRevision: many writes are one revision, deletes then updates then creates, logged in that order', async (t, store) => {
    const workspace = uniqueName();
    const origin = { actor: 'ci', time: new Date(BASE_TIME + 60_000) };
    const a = await store.insert(sampleRoute(workspace, { path: '/a', shape: '/a', owner: 'team' }));
    const b = await store.insert(sampleRoute(workspace, { path: '/b/:x', shape: '/b/:', owner: 'team' }));
    const c = await store.insert(sampleRoute(workspace, { path: '/c', shape: '/c', owner: 'team' }));
    const other = await store.insert(sampleRoute(workspace, { path: '/other', shape: '/other' }));
    // `/a` moves from a deleted route to a created one inside the revision.
    const movedA = sampleRoute(workspace, {
      path: '/a',
      shape: '/a',
      handler: 'new.a',
      owner: 'team',
      createdAt: origin.time,
      updatedAt: origin.time,
    });
    const d = sampleRoute(workspace, { path: '/d', shape: '/d', owner: 'team', createdAt: origin.time, updatedAt: origin.time });
    const bUpdate = { method: 'GET', path: '/b/:y', shape: '/b/:', middleware: [], handler: 'b2', owner: 'team', updatedAt: origin.time };
    const written = await store.applyRevision({
      workspace,
      delete: [a.id, c.id],
      update: [{ id: b.id, update: bUpdate }],
      create: [movedA, d],
      origin,
    });
    t.is(written.revision, 5, 'one revision for five changes');
    t.is(await store.revision(workspace), 5);
    t.deepEqual(
      written.changes.map((change) => [change.revision, change.kind, change.id, change.owner, change.actor, change.time.toISOString()]),
      [
        [5, 'delete', a.id, 'team', 'ci', origin.time.toISOString()],
        [5, 'delete', c.id, 'team', 'ci', origin.time.toISOString()],
        [5, 'update', b.id, 'team', 'ci', origin.time.toISOString()],
        [5, 'create', movedA.id, 'team', 'ci', origin.time.toISOString()],
        [5, 'create', d.id, 'team', 'ci', origin.time.toISOString()],
      ],
    );
    const logged = (await store.changesSince(workspace, 4, 100)) ?? [];
    t.deepEqual(
      logged.map((change) => ({ kind: change.kind, id: change.id, before: view(change.before), after: view(change.after) })),
      written.changes.map((change) => ({ kind: change.kind, id: change.id, before: view(change.before), after: view(change.after) })),
      'the log holds what applyRevision answered',
    );
    t.deepEqual(view(logged[0]?.before), view(a), 'a delete carries the route before');
    t.deepEqual([view(logged[2]?.before), view(logged[2]?.after)], [view(b), view({ ...b, ...bUpdate })], 'an update carries both');
    t.deepEqual((await store.list(workspace)).map((record) => [record.path, record.handler, record.owner, record.revision]).sort(), [
      ['/a', 'new.a', 'team', 5],
      ['/b/:y', 'b2', 'team', 5],
      ['/d', 'users.show', 'team', 5],
      ['/other', 'users.show', '', other.revision],
    ]);
    t.deepEqual(view(await store.get(workspace, b.id)), view({ ...b, ...bUpdate }), 'an update keeps id and createdAt');
  });

  define('applyRevision is all or nothing: a refusal anywhere in it writes none of it', async (t, store) => {
    const workspace = uniqueName();
    const origin = { actor: 'ci', time: new Date(BASE_TIME) };
    const kept = await store.insert(sampleRoute(workspace, { path: '/kept', shape: '/kept' }));
    const doomed = await store.insert(sampleRoute(workspace, { path: '/doomed', shape: '/doomed' }));
    const before = { revision: await store.revision(workspace), records: (await store.list(workspace)).map(view) };
    const fresh = (path: string) => sampleRoute(workspace, { path, shape: path });
    const { method, path, shape, middleware, owner } = kept;
    const update = { id: kept.id, update: { method, path, shape, middleware, owner, handler: 'changed', updatedAt: origin.time } };
    const attempts: [string, () => Promise<unknown>, ErrorCode][] = [
      [
        'a create onto a taken shape after valid writes',
        () =>
          store.applyRevision({
            workspace,
            delete: [doomed.id],
            update: [update],
            create: [fresh('/n1'), fresh('/n2'), fresh('/kept')],
            origin,
          }),
        'already_exists',
      ],
      [
        'two creates of one shape',
        () => store.applyRevision({ workspace, delete: [], update: [], create: [fresh('/n3'), fresh('/n3')], origin }),
        'already_exists',
      ],
      [
        'a create with an id that exists',
        () => store.applyRevision({ workspace, delete: [], update: [], create: [fresh('/n4'), { ...fresh('/n5'), id: kept.id }], origin }),
        'already_exists',
      ],
      [
        'an update of a route that is gone',
        () =>
          store.applyRevision({
            workspace,
            delete: [doomed.id],
            update: [{ ...update, id: ids.next('route') }],
            create: [fresh('/n6')],
            origin,
          }),
        'aborted',
      ],
      [
        'a delete of a route that is gone',
        () => store.applyRevision({ workspace, delete: [ids.next('route')], update: [update], create: [], origin }),
        'aborted',
      ],
      [
        'a route named twice',
        () => store.applyRevision({ workspace, delete: [doomed.id], update: [{ ...update, id: doomed.id }], create: [], origin }),
        'aborted',
      ],
      [
        "another workspace's route",
        () => store.applyRevision({ workspace: uniqueName(), delete: [kept.id], update: [], create: [], origin }),
        'aborted',
      ],
    ];
    for (const [what, attempt, code] of attempts) {
      await assertRejectsWithCode(t, attempt(), code, what);
      t.deepEqual(
        { revision: await store.revision(workspace), records: (await store.list(workspace)).map(view) },
        before,
        `${what}: nothing written`,
      );
    }
    t.deepEqual(
      (await store.changesSince(workspace, 0, 100))?.map((change) => change.revision),
      [1, 2],
      'nothing logged',
    );
  });

  define('applyRevision with expectedRevision is a compare-and-swap; nothing to write makes no revision', async (t, store) => {
    const workspace = uniqueName();
    const origin = { actor: 'ci', time: new Date(BASE_TIME) };
    const route = (path: string) => sampleRoute(workspace, { path, shape: path });
    const first = await store.applyRevision({ workspace, delete: [], update: [], create: [route('/a')], expectedRevision: 0, origin });
    t.is(first.revision, 1);
    const stale = store.applyRevision({ workspace, delete: [], update: [], create: [route('/b')], expectedRevision: 0, origin });
    const error = await assertRejectsWithCode(t, stale, 'aborted', 'a stale expectedRevision');
    t.deepEqual(error?.details, [{ field: 'expectedRevision', reason: 'the route table is at revision 1' }]);
    t.is(await store.count(workspace), 1, 'the stale write wrote nothing');
    t.deepEqual(await store.applyRevision({ workspace, delete: [], update: [], create: [], origin }), { revision: 1, changes: [] });
    t.deepEqual(await store.applyRevision({ workspace, delete: [], update: [], create: [], expectedRevision: 1, origin }), {
      revision: 1,
      changes: [],
    });
    await assertRejectsWithCode(
      t,
      store.applyRevision({ workspace, delete: [], update: [], create: [], expectedRevision: 7, origin }),
      'aborted',
      'nothing to write, at a revision the table is not at',
    );
    t.is(await store.revision(workspace), 1, 'no revision for nothing');
    const racing = await Promise.allSettled(
      ['/c1', '/c2', '/c3', '/c4'].map((path) =>
        store.applyRevision({ workspace, delete: [], update: [], create: [route(path), route(`${path}x`)], expectedRevision: 1, origin }),
      ),
    );
    const { fulfilled, rejectedCodes } = tally(racing);
    t.is(fulfilled.length, 1, 'one of the writes planned against revision 1 wins');
    t.deepEqual(rejectedCodes, ['aborted', 'aborted', 'aborted']);
    t.is(await store.revision(workspace), 2);
    t.is(await store.count(workspace), 3);
  });

  define('changesSince answers whole revisions: never a part of one, however the limit falls', async (t, store) => {
    const workspace = uniqueName();
    const origin = { actor: 'ci', time: new Date(BASE_TIME) };
    await store.insert(sampleRoute(workspace, { path: '/first', shape: '/first' }));
    const many = ['/m1', '/m2', '/m3', '/m4', '/m5'].map((path) => sampleRoute(workspace, { path, shape: path }));
    await store.applyRevision({ workspace, delete: [], update: [], create: many, origin });
    await store.insert(sampleRoute(workspace, { path: '/last', shape: '/last' }));
    const revisions = async (since: number, limit: number) =>
      (await store.changesSince(workspace, since, limit))?.map((change) => change.revision);
    t.deepEqual(await revisions(0, 3), [1], 'the limit falls inside revision 2: it stops before it');
    t.deepEqual(await revisions(0, 6), [1, 2, 2, 2, 2, 2], 'the limit at the end of revision 2');
    t.deepEqual(await revisions(1, 2), [2, 2, 2, 2, 2], 'a first revision larger than the limit comes whole');
    t.deepEqual(
      (await store.changesSince(workspace, 1, 2))?.map((change) => change.after?.path),
      ['/m1', '/m2', '/m3', '/m4', '/m5'],
      'whole, each change once, in the order written',
    );
    t.deepEqual(await revisions(1, 6), [2, 2, 2, 2, 2, 3]);
    t.deepEqual(
      (await store.changesSince(workspace, 1, 100))?.map((change) => change.after?.path),
      ['/m1', '/m2', '/m3', '/m4', '/m5', '/last'],
      'in the order written',
    );
  });
}
