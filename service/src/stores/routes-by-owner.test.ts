// An apply with an owner reads that owner's routes by (workspace, owner), in both dialects, as the query the store runs.
import test from 'ava';
import { sql, type Kysely } from 'kysely';
import { sampleRoute } from '@switchyard/core/testing';
import { createTestMysqlDatabase } from '../../../test/support/mysql.js';
import { migrateToLatest } from '../migrations/index.js';
import { dialectOf, openDatabase } from './database.js';
import { ownedRoutesQuery } from './kysely-route-store.js';
import { toRow } from './kysely-route-rows.js';
import { queryPlan } from './query-plan.test-support.js';
import type { Database } from './schema.js';

const mysql = await createTestMysqlDatabase();
if (!mysql) test.skip('mysql: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
test.after.always(async () => mysql?.drop());

const targets: [string, () => Kysely<Database>][] = [['sqlite', () => openDatabase({ kind: 'sqlite', file: ':memory:' })]];
if (mysql) targets.push(['mysql', () => openDatabase({ kind: 'mysql', url: mysql.url })]);

// Many owners in one workspace, each a small part of its routes (as teams sharing a table are): on a few big ones a scan is as good.
const OWNERS = ['', ...Array.from({ length: 39 }, (_, i) => `team-${i}`)];

for (const [name, open] of targets) {
  test(`${name}: an owner's routes are a lookup on routes_by_owner, and all of them are found`, async (t) => {
    const db = open();
    try {
      await migrateToLatest(db);
      const workspace = `owners-${name}`;
      // Rows written straight, in a few statements: the read's plan is under test, not the store's writes.
      const rows = Array.from({ length: 2000 }, (_, i) =>
        toRow({ ...sampleRoute(workspace, { path: `/r${i}`, shape: `/r${i}`, owner: OWNERS[i % OWNERS.length]! }), revision: 1 }),
      );
      for (let i = 0; i < rows.length; i += 500)
        await db
          .insertInto('routes')
          .values(rows.slice(i, i + 500))
          .execute();
      if (dialectOf(db) === 'mysql') await sql`ANALYZE TABLE routes`.execute(db);
      const plan = await queryPlan(db, ownedRoutesQuery(db, workspace, 'team-7').compile());
      t.regex(
        plan,
        dialectOf(db) === 'mysql' ? /"key":"routes_by_owner"/ : /USING INDEX routes_by_owner \(workspace=\? AND owner=\?\)/,
        plan,
      );
      const found = await ownedRoutesQuery(db, workspace, 'team-7').execute();
      t.is(found.length, 50);
      t.true(found.every((row) => row.owner === 'team-7'));
    } finally {
      await db.destroy();
    }
  });
}
