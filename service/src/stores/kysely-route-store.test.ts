// The Kysely route store beyond the conformance suite, on SQLite and (when reachable) MySQL: the bounded change log (trimmed in batches, answered exactly), revisions of thousands of rows, applies racing on one database.
import test from 'ava';
import { createPrincipal, createSwitchyard, createUlidSource, memoryAdapters, type SwitchyardError } from '@switchyard/core';
import { testNeedingMysql } from '../../../test/support/mysql.js';
import { withMigratedDatabase } from './migrated-database.test-support.js';
import { KyselyRouteStore } from './kysely-route-store.js';

const HISTORY = 5;
const mysqlTest = await testNeedingMysql();
const ids = createUlidSource();

for (const kind of ['sqlite', 'mysql'] as const) {
  (kind === 'mysql' ? mysqlTest : test)(
    `${kind}: changesSince answers the last \`history\` changes exactly; the log is trimmed in batches, never below it`,
    async (t) => {
      await withMigratedDatabase(t, kind, async (db) => {
        const store = new KyselyRouteStore(db, { history: HISTORY });
        const workspace = `ws-${ids.next('route')}`;
        const logged = async () =>
          Number(
            (
              await db
                .selectFrom('route_changes')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('workspace', '=', workspace)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const now = new Date();
        for (let i = 1; i <= 150; i++) {
          await store.insert({
            id: ids.next('route'),
            workspace,
            method: 'GET',
            path: `/r${i}`,
            shape: `/r${i}`,
            middleware: [],
            handler: 'h',
            owner: '',
            createdAt: now,
            updatedAt: now,
          });
          const held = await logged();
          t.true(held >= Math.min(i, HISTORY) && held < HISTORY + 64, `after ${i} writes the log holds ${held}`);
        }
        t.is(await store.revision(workspace), 150);
        t.deepEqual(
          (await store.changesSince(workspace, 150 - HISTORY, 100))?.map((change) => change.revision),
          [146, 147, 148, 149, 150],
        );
        t.is(
          await store.changesSince(workspace, 150 - HISTORY - 1, 100),
          undefined,
          'one change further back is past the history, though the log may still hold it',
        );
        t.true((await logged()) > HISTORY, 'here it does: the last trim was at revision 128');
        t.deepEqual(await store.changesSince(workspace, 150, 100), []);
      });
    },
  );
}

for (const kind of ['sqlite', 'mysql'] as const) {
  (kind === 'mysql' ? mysqlTest : test)(`${kind}: a revision of thousands of changes is written in runs of rows, whole`, async (t) => {
    await withMigratedDatabase(t, kind, async (db) => {
      const store = new KyselyRouteStore(db);
      const workspace = `ws-${ids.next('route')}`;
      const time = new Date();
      const origin = { actor: 'ci', time };
      const route = (i: number) => ({
        id: ids.next('route'),
        workspace,
        method: 'GET',
        path: `/r${i}/:id`,
        shape: `/r${i}/:`,
        middleware: ['auth'],
        handler: 'h',
        owner: 'team',
        createdAt: time,
        updatedAt: time,
      });
      const first = Array.from({ length: 1_200 }, (_, i) => route(i));
      t.is((await store.applyRevision({ workspace, delete: [], update: [], create: first, origin })).revision, 1);
      const update = first.slice(600, 1_100).map(({ id, method, shape, middleware, owner }, i) => ({
        id,
        update: { method, path: `/r${600 + i}/:key`, shape, middleware, handler: 'h2', owner, updatedAt: time },
      }));
      const written = await store.applyRevision({
        workspace,
        delete: first.slice(0, 600).map(({ id }) => id),
        update,
        create: Array.from({ length: 1_100 }, (_, i) => route(2_000 + i)),
        expectedRevision: 1,
        origin,
      });
      t.is(written.revision, 2);
      t.is(written.changes.length, 2_200);
      t.is(await store.count(workspace), 1_700);
      t.is((await store.list(workspace)).filter((record) => record.handler === 'h2' && record.path.endsWith('/:key')).length, 500);
      const logged = (await store.changesSince(workspace, 1, 100)) ?? [];
      t.is(logged.length, 2_200, 'a revision larger than the limit comes whole');
      t.deepEqual([...new Set(logged.map((change) => `${change.revision} ${change.kind}`))], ['2 delete', '2 update', '2 create']);
    });
  });
}

for (const kind of ['sqlite', 'mysql'] as const) {
  (kind === 'mysql' ? mysqlTest : test)(
    `${kind}: route-service applies race on one database: a compare-and-swap, or plans made again`,
    async (t) => {
      await withMigratedDatabase(t, kind, async (db) => {
        const store = new KyselyRouteStore(db);
        const switchyard = createSwitchyard({ ...memoryAdapters(), routeStore: store, cdnUrl: 'http://127.0.0.1/files' });
        t.teardown(() => switchyard.close());
        const { routes } = switchyard;
        const caller = createPrincipal('ci', `ws-${ids.next('route')}`.slice(0, 40), ['routes:read', 'routes:write']);
        const table = (owner: string, count: number) => ({
          owner,
          prune: true,
          routes: Array.from({ length: count }, (_, i) => ({ method: 'GET', path: `/${owner}/${i}/:id`, handler: `${owner}.h` })),
        });
        const first = await routes.apply(caller, table('team-a', 300));
        t.is(first.created.length, 300);
        t.is((await routes.apply(caller, table('team-a', 300))).revision, first.revision, 'the same table again: no revision');
        const cas = await Promise.allSettled([
          routes.apply(caller, { ...table('team-b', 50), expectedRevision: first.revision }),
          routes.apply(caller, { ...table('team-c', 50), expectedRevision: first.revision }),
        ]);
        t.deepEqual(cas.map((result: PromiseSettledResult<unknown>) => result.status).sort(), ['fulfilled', 'rejected']);
        const refused = cas.find((result) => result.status === 'rejected')?.reason as SwitchyardError;
        t.is(refused.code, 'aborted');
        t.deepEqual(refused.details, [{ field: 'expectedRevision', reason: `the route table is at revision ${first.revision + 1}` }]);
        const both = await Promise.all([routes.apply(caller, table('team-d', 40)), routes.apply(caller, table('team-e', 40))]);
        t.deepEqual(
          both.map((result) => result.created.length),
          [40, 40],
          'without expectedRevision, the later apply plans again',
        );
        t.is(await store.revision(caller.workspace), first.revision + 3);
        t.is(await store.count(caller.workspace), 300 + 50 + 80);
      });
    },
  );
}
