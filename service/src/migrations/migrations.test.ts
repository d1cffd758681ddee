// The schema on both dialects: what the conformance suites cannot see from the ports.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { isSwitchyardError } from '@switchyard/core';
import { eventually, quietPeriod, sampleAsset, sampleRoute } from '@switchyard/core/testing';
import { openDatabase } from '../stores/database.js';
import { assetRow, KyselyAssetStore } from '../stores/kysely-asset-store.js';
import { KyselyRouteStore } from '../stores/kysely-route-store.js';
import type { Database } from '../stores/schema.js';
import { createTestMysqlDatabase } from '../../../test/support/mysql.js';
import { createMigrator, migrateToLatest } from './index.js';

interface Target {
  readonly name: string;
  open(): Promise<{ db: Kysely<Database>; cleanup(): Promise<void> }>;
}

const sqlite: Target = {
  name: 'sqlite',
  open: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchyard-migrations-'));
    const db = openDatabase({ kind: 'sqlite', file: join(dir, 'db.sqlite') });
    return { db, cleanup: async () => (await db.destroy(), await rm(dir, { recursive: true, force: true })) };
  },
};

const mysqlAvailable = await createTestMysqlDatabase().then(async (probe) => (await probe?.drop(), probe !== undefined));
const mysql: Target = {
  name: 'mysql',
  open: async () => {
    const database = await createTestMysqlDatabase();
    if (!database) throw new Error('MySQL went away');
    const db = openDatabase({ kind: 'mysql', url: database.url });
    return { db, cleanup: async () => (await db.destroy(), await database.drop()) };
  },
};

if (!mysqlAvailable) test.skip('mysql: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);

for (const target of mysqlAvailable ? [sqlite, mysql] : [sqlite]) {
  const withDb = (title: string, body: (t: import('ava').ExecutionContext, db: Kysely<Database>) => Promise<void>) =>
    test(`${target.name}: ${title}`, async (t) => {
      const { db, cleanup } = await target.open();
      try {
        await body(t, db);
      } finally {
        await cleanup();
      }
    });

  withDb('migrateToLatest applies every migration once, then nothing', async (t, db) => {
    t.deepEqual(await migrateToLatest(db), [
      '0001-initial',
      '0002-assets-by-workspace',
      '0003-asset-visibility-and-policies',
      '0004-route-revisions',
      '0005-resumable-uploads',
      '0006-asset-names',
      '0007-media-facts',
      '0008-asset-changes',
      '0009-route-owners',
      '0010-api-keys',
      '0011-versions-and-trash',
      '0012-webhooks',
      '0013-routes-by-owner',
    ]);
    t.deepEqual(await migrateToLatest(db), []);
    const tables = (await db.introspection.getTables()).map((table) => table.name).sort();
    t.deepEqual(tables, [
      'api_keys',
      'asset_changes',
      'asset_revisions',
      'asset_trash',
      'asset_versions',
      'assets',
      'resumable_uploads',
      'route_changes',
      'route_revisions',
      'routes',
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_endpoints',
      'webhook_messages',
      'workspace_policies',
    ]);
  });

  withDb('workspaces compare exactly: case and accents make other workspaces', async (t, db) => {
    await migrateToLatest(db);
    const store = new KyselyRouteStore(db);
    const upper = sampleRoute('Acme');
    await store.insert(upper);
    t.is(await store.get('acme', upper.id), undefined);
    await t.notThrowsAsync(store.insert(sampleRoute('acme')), 'same shape in a workspace differing only in case');
    await t.notThrowsAsync(store.insert(sampleRoute('Acmé')), 'same shape in a workspace differing only in an accent');
    t.is(await store.count('Acme'), 1);
  });

  withDb('a 1024-character shape is stored whole and still unique per workspace and method', async (t, db) => {
    await migrateToLatest(db);
    const store = new KyselyRouteStore(db);
    const long = `/${'a'.repeat(1023)}`;
    const record = sampleRoute('long', { path: long, shape: long });
    await store.insert(record);
    t.is((await store.get('long', record.id))?.shape, long);
    const error = await t.throwsAsync(store.insert(sampleRoute('long', { path: long, shape: long })));
    t.true(isSwitchyardError(error) && error.code === 'already_exists');
    t.deepEqual(isSwitchyardError(error) ? error.details : [], [{ field: 'path', reason: 'duplicate method and path shape' }]);
    await t.notThrowsAsync(
      store.insert(sampleRoute('long', { path: `${long.slice(0, -1)}b`, shape: `${long.slice(0, -1)}b` })),
      'differs in the last character',
    );
  });

  withDb('times are stored as exact UTC epoch milliseconds', async (t, db) => {
    await migrateToLatest(db);
    const record = sampleRoute('times', { createdAt: new Date('1999-12-31T23:59:59.999Z') });
    await new KyselyRouteStore(db).insert(record);
    const row = await db.selectFrom('routes').select('created_at').where('id', '=', record.id).executeTakeFirstOrThrow();
    t.is(Number(row.created_at), Date.parse('1999-12-31T23:59:59.999Z'));
    t.is((await new KyselyRouteStore(db).get('times', record.id))?.createdAt.toISOString(), '1999-12-31T23:59:59.999Z');
  });

  withDb('0008: assets stored before it start their workspace at revision 0; their next change is revision 1', async (t, db) => {
    await createMigrator(db).migrateTo('0007-media-facts');
    const record = sampleAsset('before-0008');
    await db.insertInto('assets').values(assetRow(record)).execute();
    t.deepEqual(
      (await createMigrator(db).migrateTo('0008-asset-changes')).results?.map((result) => [result.migrationName, result.status]),
      [['0008-asset-changes', 'Success']],
    );
    // Today's store writes the later migrations' columns too; the rows from before 0008 are what is under test.
    await migrateToLatest(db);
    const store = new KyselyAssetStore(db);
    t.is(await store.revision('before-0008'), 0);
    t.deepEqual(await store.history('before-0008', record.id, { limit: 10 }), [], 'no change logged for what came before');
    const updated = await store.update('before-0008', record.id, { label: 'after' }, { actor: 'alice', time: new Date(1) });
    t.deepEqual([updated?.change.type, updated?.change.revision, updated?.record.label], ['asset.updated', 1, 'after']);
    t.deepEqual(
      (await store.changesSince('before-0008', 0, 10))?.map((change) => [change.revision, change.actor, change.assetId]),
      [[1, 'alice', record.id]],
    );
  });

  withDb('0009 keeps the change log: one change per old revision, with what the old log knew of before, kind and time', async (t, db) => {
    t.is((await createMigrator(db).migrateTo('0007-media-facts')).error, undefined);
    const [t1, t2, t3] = [1_700_000_000_001, 1_700_000_000_502, 1_700_000_001_003];
    const row = (id: string, path: string, created: number, updated: number, revision: number) => ({
      id,
      workspace: 'old',
      method: 'GET',
      path,
      shape: path,
      middleware: '["auth"]',
      handler: 'h',
      created_at: created,
      updated_at: updated,
      revision,
    });
    const a = 'rt_0000000000000000000000000a';
    const b = 'rt_0000000000000000000000000b';
    const logged = [
      { revision: 1, kind: 'upsert', route_id: a, record: JSON.stringify(row(a, '/a', t1, t1, 1)) },
      { revision: 2, kind: 'upsert', route_id: a, record: JSON.stringify(row(a, '/a2', t1, t2, 2)) },
      { revision: 3, kind: 'upsert', route_id: b, record: JSON.stringify(row(b, '/b', t3, t3, 3)) },
      { revision: 4, kind: 'delete', route_id: a, record: null },
    ];
    const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await untyped
      .insertInto('routes')
      .values({ ...row(b, '/b', t3, t3, 3), shape_hash: 'x'.repeat(64) })
      .execute();
    await untyped.insertInto('route_revisions').values({ workspace: 'old', revision: 4 }).execute();
    await untyped
      .insertInto('route_changes')
      .values(logged.map((change) => ({ workspace: 'old', ...change })))
      .execute();
    t.deepEqual(await migrateToLatest(db), [
      '0008-asset-changes',
      '0009-route-owners',
      '0010-api-keys',
      '0011-versions-and-trash',
      '0012-webhooks',
      '0013-routes-by-owner',
    ]);
    const store = new KyselyRouteStore(db);
    t.is((await store.get('old', b))?.owner, '', 'routes from before have no owner');
    const changes = (await store.changesSince('old', 0, 10)) ?? [];
    t.deepEqual(
      changes.map((change) => [
        change.revision,
        change.kind,
        change.id,
        change.before?.path,
        change.after?.path,
        change.time.getTime(),
        change.actor,
        change.owner,
      ]),
      [
        [1, 'create', a, undefined, '/a', t1, '', ''],
        [2, 'update', a, '/a', '/a2', t2, '', ''],
        [3, 'create', b, undefined, '/b', t3, '', ''],
        [4, 'delete', a, '/a2', undefined, 0, '', ''],
      ],
    );
    t.deepEqual(changes[1]?.before?.middleware, ['auth']);
    await store.update('old', b, {
      method: 'GET',
      path: '/b',
      shape: '/b',
      middleware: [],
      handler: 'h',
      owner: 'team',
      updatedAt: new Date(t3 + 1),
    });
    t.deepEqual(
      (await store.changesSince('old', 4, 10))?.map((change) => [change.revision, change.kind, change.before?.revision, change.owner]),
      [[5, 'update', 3, 'team']],
      'writes after the migration continue the same log',
    );
  });

  withDb('two migrators at once apply the schema once', async (t, db) => {
    const both = await Promise.all([migrateToLatest(db), migrateToLatest(db)]);
    t.deepEqual(both.flat().sort(), [
      '0001-initial',
      '0002-assets-by-workspace',
      '0003-asset-visibility-and-policies',
      '0004-route-revisions',
      '0005-resumable-uploads',
      '0006-asset-names',
      '0007-media-facts',
      '0008-asset-changes',
      '0009-route-owners',
      '0010-api-keys',
      '0011-versions-and-trash',
      '0012-webhooks',
      '0013-routes-by-owner',
    ]);
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM routes`.execute(db);
    t.is(Number(rows[0]?.n), 0);
  });
}

/** Kysely's MySQL migration lock (its MysqlAdapter): a GET_LOCK name, one for the whole server. */
const KYSELY_MIGRATION_LOCK = 'ea586330-2c93-47c8-908d-981d9d270f9d';

(mysqlAvailable ? test : test.skip)(
  'mysql: migrations are free of the per-query timeout: they wait for the lock another process holds, while other queries still time out',
  async (t) => {
    const database = await createTestMysqlDatabase();
    if (!database) throw new Error('MySQL went away');
    const timeoutMs = 200;
    const db = openDatabase({ kind: 'mysql', url: database.url, timeoutMs });
    const holder = openDatabase({ kind: 'mysql', url: database.url });
    try {
      await holder.connection().execute(async (connection) => {
        await sql`SELECT GET_LOCK(${KYSELY_MIGRATION_LOCK}, 60)`.execute(connection);
        const migrated = migrateToLatest(db);
        // The migration waits for the lock (another process migrating), for longer than a query may take.
        await eventually(
          async () => {
            const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
            WHERE DB = ${database.name} AND ID <> CONNECTION_ID() AND INFO LIKE ${`%get_lock%${KYSELY_MIGRATION_LOCK}%`}`.execute(holder);
            return Number(rows[0]?.n) === 1;
          },
          { timeout: 30_000, message: 'the migration waiting for the lock' },
        );
        await quietPeriod(timeoutMs * 3);
        await sql`SELECT RELEASE_LOCK(${KYSELY_MIGRATION_LOCK})`.execute(connection);
        t.is((await migrated).length, 13, 'every migration applied once the lock was free');
      });
      const error = await t.throwsAsync(sql`SELECT SLEEP(2)`.execute(db));
      t.is((error as { code?: unknown } | undefined)?.code, 'PROTOCOL_SEQUENCE_TIMEOUT', 'an ordinary query still times out');
    } finally {
      await holder.destroy();
      await db.destroy();
      await database.drop();
    }
  },
);

test('a migration that cannot reach its database fails with one clear unavailable error', async (t) => {
  const db = openDatabase({ kind: 'mysql', url: 'mysql://root@127.0.0.1:1/switchyard' });
  try {
    const error = await t.throwsAsync(migrateToLatest(db));
    t.true(isSwitchyardError(error) && error.code === 'unavailable', String(error));
    t.regex(error?.message ?? '', /^database migrations? .*(could not run|failed): /);
  } finally {
    await db.destroy();
  }
});

test('an SQLite file that cannot be created is unavailable, naming the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-migrations-'));
  try {
    // A folder cannot be made below a regular file.
    const file = join(dir, 'not-a-folder', 'db.sqlite');
    await writeFile(join(dir, 'not-a-folder'), 'x');
    const error = t.throws(() => openDatabase({ kind: 'sqlite', file }));
    t.true(isSwitchyardError(error) && error.code === 'unavailable');
    t.true(error?.message.includes(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
