// A `q` listing is a range on the (workspace, name_lower, id) index in both dialects, as the query the store runs.
import test from 'ava';
import type { Kysely } from 'kysely';
import { nameKey } from '@switchyard/core';
import { sampleAsset } from '@switchyard/core/testing';
import { createTestMysqlDatabase } from '../../../test/support/mysql.js';
import { migrateToLatest } from '../migrations/index.js';
import { dialectOf, openDatabase } from './database.js';
import { assetRow, KyselyAssetStore, listQuery } from './kysely-asset-store.js';
import { prefixRange } from './name-prefix.js';
import { queryPlan } from './query-plan.test-support.js';
import type { Database } from './schema.js';

const mysql = await createTestMysqlDatabase();
if (!mysql) test.skip('mysql: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
test.after.always(async () => mysql?.drop());

const targets: [string, () => Kysely<Database>][] = [['sqlite', () => openDatabase({ kind: 'sqlite', file: ':memory:' })]];
if (mysql) targets.push(['mysql', () => openDatabase({ kind: 'mysql', url: mysql.url })]);

for (const [name, open] of targets) {
  test(`${name}: the first page of a name prefix is a range on assets_workspace_name`, async (t) => {
    const db = open();
    try {
      await migrateToLatest(db);
      const workspace = `index-${name}`;
      // Rows written straight, in a few statements: the listing's plan is under test, not the store's writes.
      const records = Array.from({ length: 1500 }, (_, i) =>
        sampleAsset(workspace, { name: `${((i * 7919) % 1500).toString(36)} Datei.png` }),
      );
      for (let i = 0; i < records.length; i += 500)
        await db
          .insertInto('assets')
          .values(records.slice(i, i + 500).map(assetRow))
          .execute();
      const { from, to, bytes } = prefixRange(nameKey('AB'));
      const query = listQuery(db, { before: false, type: undefined, label: false, name: true }, [workspace, from, to, bytes, 51]).compile();
      const plan = await queryPlan(db, query);
      t.regex(
        plan,
        dialectOf(db) === 'mysql'
          ? /"key":"assets_workspace_name"/
          : /USING (COVERING )?INDEX assets_workspace_name \(workspace=\? AND name_lower>\? AND name_lower<\?\)/,
        plan,
      );
      const found = await new KyselyAssetStore(db).list(workspace, { limit: 50, namePrefix: nameKey('AB') });
      t.true(found.length > 0 && found.every((record) => record.name.startsWith('ab')), 'and it finds what it should');
    } finally {
      await db.destroy();
    }
  });
}
