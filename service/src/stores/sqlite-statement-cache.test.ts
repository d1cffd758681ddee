import test from 'ava';
import SqliteDatabase from 'better-sqlite3';
import { ARRAY_ROWS } from './array-rows.js';
import { withStatementCache } from './sqlite-statement-cache.js';

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
  t.deepEqual(cached.prepare(`${ARRAY_ROWS}SELECT s, n FROM t ORDER BY n`).all([]), [['a', 1], [null, 2]]);
  // The same query without the mark keeps its objects: the two are different statements.
  t.deepEqual(cached.prepare('SELECT s, n FROM t ORDER BY n').all([]), [{ s: 'a', n: 1 }, { s: null, n: 2 }]);
  cached.close();
});
