import test from 'ava';
import SqliteDatabase from 'better-sqlite3';
import { ARRAY_ROWS } from './array-rows.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { openDatabase } from './database.js';
import { preparedRowsQuery } from './prepared-query.js';

test('the same SQL text is prepared once and its statement reused; results stay right', (t) => {
  const database = new SqliteDatabase(':memory:');
  let prepared = 0;
  const counting = { close: () => database.close(), prepare: (sql: string) => (prepared++, database.prepare(sql)) };
  const cached = withStatementCache(counting);
  cached.prepare('CREATE TABLE t (n INTEGER)').run([]);
  const insert = 'INSERT INTO t (n) VALUES (?)';
  for (const n of [1, 2, 3]) cached.prepare(insert).run([n]);
  t.deepEqual(cached.prepare('SELECT n FROM t WHERE n >= ? ORDER BY n').all([2]), [{ n: 2 }, { n: 3 }]);
  t.deepEqual(cached.prepare('SELECT n FROM t WHERE n >= ? ORDER BY n').all([3]), [{ n: 3 }]);
  t.is(prepared, 3);
  cached.close();
  t.false(database.open);
});

test('a query marked for array rows answers each row as its column values, in the order selected', (t) => {
  const cached = withStatementCache(new SqliteDatabase(':memory:'));
  cached.prepare('CREATE TABLE t (n INTEGER, s TEXT)').run([]);
  cached.prepare('INSERT INTO t (n, s) VALUES (?, ?), (?, ?)').run([1, 'a', 2, null]);
  t.deepEqual(cached.prepare(`${ARRAY_ROWS}SELECT s, n FROM t ORDER BY n`).all([]), [
    ['a', 1],
    [null, 2],
  ]);
  // The same query without the mark keeps its objects: the two are different statements.
  t.deepEqual(cached.prepare('SELECT s, n FROM t ORDER BY n').all([]), [
    { s: 'a', n: 1 },
    { s: null, n: 2 },
  ]);
  cached.close();
});

test('readNow answers at once outside a transaction, and not at all while one is open', (t) => {
  const database = new SqliteDatabase(':memory:');
  const cached = withStatementCache(database);
  cached.prepare('CREATE TABLE t (n INTEGER)').run([]);
  cached.prepare('INSERT INTO t (n) VALUES (?)').run([1]);
  t.deepEqual(cached.readNow('SELECT n FROM t', []), [{ n: 1 }]);
  database.exec('BEGIN');
  database.exec('INSERT INTO t (n) VALUES (2)');
  t.is(cached.readNow('SELECT n FROM t', []), undefined, 'an open transaction: the caller must queue behind it');
  database.exec('ROLLBACK');
  t.deepEqual(cached.readNow('SELECT n FROM t', []), [{ n: 1 }]);
  cached.close();
});

test('a prepared read never sees what an open Kysely transaction wrote: it waits for the commit or rollback', async (t) => {
  const db = openDatabase({ kind: 'sqlite', file: ':memory:' });
  t.teardown(() => db.destroy());
  await db.schema.createTable('t').addColumn('n', 'integer').execute();
  await db
    .insertInto('t' as never)
    .values({ n: 1 })
    .execute();
  const count = preparedRowsQuery(
    db,
    (min: number) =>
      db
        .selectFrom('t' as never)
        .select((eb) => eb.fn.countAll().as('c'))
        .where('n' as never, '>=', min as never),
    [-1] as const,
  );
  t.deepEqual((await count(0)).rows, [[1]], 'no transaction open');
  let read: Promise<unknown> | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto('t' as never)
        .values({ n: 2 })
        .execute();
      read = count(0).then((result) => result.rows);
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('roll back');
    })
    .catch(() => undefined);
  t.deepEqual(await read, [[1]], 'read after the rollback, through Kysely');
});
