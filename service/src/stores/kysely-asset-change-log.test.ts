// The asset change log on SQLite and (when reachable) MySQL, beyond the conformance suite: a change row that
// cannot be written takes its asset write down with it, and the log is trimmed in bounded batches.
import test from 'ava';
import { sql, type Kysely } from 'kysely';
import { isSwitchyardError } from '@switchyard/core';
import { sampleAsset, sampleContent } from '@switchyard/core/testing';
import { testNeedingMysql } from '../../../test/support/mysql.js';
import { withMigratedDatabase } from './migrated-database.test-support.js';
import { KyselyAssetStore } from './kysely-asset-store.js';
import type { Database } from './schema.js';

const HISTORY = 5;
const mysqlTest = await testNeedingMysql();
const by = { actor: 'log-test', time: new Date('2026-01-02T03:04:05.678Z') };

const count = async (db: Kysely<Database>, table: 'assets' | 'asset_changes', workspace: string) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace', '=', workspace)
        .executeTakeFirstOrThrow()
    ).n,
  );

for (const kind of ['sqlite', 'mysql'] as const) {
  (kind === 'mysql' ? mysqlTest : test)(
    `${kind}: a change row that cannot be written rolls back its asset write and revision`,
    async (t) => {
      await withMigratedDatabase(t, kind, async (db) => {
        const store = new KyselyAssetStore(db);
        const workspace = 'rollback';
        const kept = sampleAsset(workspace);
        await store.insert(kept, by);
        // The log's table gone: every later write fails at its change row, after its asset statement ran.
        await sql`DROP TABLE asset_changes`.execute(db);
        const refused = async (what: string, write: Promise<unknown>) => {
          const error = await t.throwsAsync(write, { any: true });
          t.true(isSwitchyardError(error) && error.code === 'internal', `${what}: ${String(error)}`);
        };
        const lost = sampleAsset(workspace);
        await refused('insert', store.insert(lost, by));
        await refused('swap', store.swap(workspace, kept.id, 1, sampleContent(workspace), {}, by));
        await refused('update', store.update(workspace, kept.id, { label: 'never' }, by));
        await refused('delete', store.delete(workspace, kept.id, by));
        t.is(await store.get(workspace, lost.id), undefined, 'the insert left no row');
        const stored = await store.get(workspace, kept.id);
        t.deepEqual(
          [stored?.version, stored?.label, stored?.blobId],
          [1, kept.label, kept.blobId],
          'swap, update and delete left the row as it was',
        );
        t.is(await store.revision(workspace), 1, 'no revision was raised for good');
      });
    },
  );

  (kind === 'mysql' ? mysqlTest : test)(
    `${kind}: the log is trimmed in batches, never below the last \`history\` revisions, and answers exactly those`,
    async (t) => {
      await withMigratedDatabase(t, kind, async (db) => {
        const store = new KyselyAssetStore(db, { history: HISTORY });
        const workspace = 'trimmed';
        const record = sampleAsset(workspace);
        await store.insert(record, by);
        for (let revision = 2; revision <= 150; revision++) {
          await store.update(workspace, record.id, { label: `l${revision}` }, by);
          const held = await count(db, 'asset_changes', workspace);
          t.true(held >= Math.min(revision, HISTORY) && held < HISTORY + 64, `after ${revision} writes the log holds ${held}`);
        }
        t.deepEqual(
          (await store.changesSince(workspace, 150 - HISTORY, 100))?.map((change) => change.revision),
          [146, 147, 148, 149, 150],
        );
        t.is(await store.changesSince(workspace, 150 - HISTORY - 1, 100), undefined, 'past the history, though the log may still hold it');
        t.true((await count(db, 'asset_changes', workspace)) > HISTORY, 'here it does: the last trim was at revision 128');
        t.deepEqual(
          (await store.history(workspace, record.id, { limit: 100 })).map((change) => change.revision),
          [150, 149, 148, 147, 146],
          "an asset's history is as bounded",
        );
        t.is(await count(db, 'assets', workspace), 1);
      });
    },
  );
}
