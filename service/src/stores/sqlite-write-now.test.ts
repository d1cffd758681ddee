import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from './database.js';
import type { Database } from './schema.js';
import { directWriterOf, relaxedCommits } from './sqlite-write-now.js';

async function withSqlite(run: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'write-now-'));
  const db = openDatabase({ kind: 'sqlite', file: join(dir, 'records.sqlite') });
  try {
    await sql`create table t (n integer not null)`.execute(db);
    await run(db);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const numbers = async (db: Kysely<Database>) =>
  (await sql<{ n: number }>`select n from t order by rowid`.execute(db)).rows.map((row) => row.n);
const synchronous = async (db: Kysely<Database>) =>
  (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]?.synchronous;

test('a direct write commits its statements together, answers what its work answered, and leaves the connection flushing every commit', async (t) => {
  await withSqlite(async (db) => {
    const writeNow = directWriterOf(db)!;
    let during: unknown;
    const answer = await writeNow((prepare) => {
      during = prepare('pragma synchronous').get();
      prepare('insert into t (n) values (?)').run(1);
      prepare('insert into t (n) values (?)').run(2);
      return 'done';
    });
    t.is(answer, 'done');
    t.deepEqual(during, { synchronous: 1 }, 'committed with synchronous = NORMAL');
    t.deepEqual(await numbers(db), [1, 2]);
    t.is(await synchronous(db), 2, 'synchronous = FULL again after the write');
  });
});

test('a direct write that throws writes nothing and rejects with its error', async (t) => {
  await withSqlite(async (db) => {
    const writeNow = directWriterOf(db)!;
    const error = await t.throwsAsync(
      writeNow((prepare) => {
        prepare('insert into t (n) values (?)').run(1);
        throw new Error('half way');
      }),
    );
    t.is(error?.message, 'half way');
    t.deepEqual(await numbers(db), []);
    t.is(await synchronous(db), 2);
  });
});

test('a direct write waits for a Kysely transaction open on the connection, and never runs inside it', async (t) => {
  await withSqlite(async (db) => {
    const writeNow = directWriterOf(db)!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await sql`insert into t (n) values (1)`.execute(trx);
      await held;
      await sql`insert into t (n) values (2)`.execute(trx);
      throw new Error('rolled back');
    });
    const written = writeNow((prepare) => prepare('insert into t (n) values (?)').run(3).changes);
    // Let the write try to start while the transaction is open.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await t.throwsAsync(transaction, { message: 'rolled back' });
    t.is(await written, 1);
    t.deepEqual(await numbers(db), [3], "the transaction's rows rolled back alone; the direct write kept its own");
  });
});

test('relaxedCommits runs Kysely work with synchronous = NORMAL on the held connection, and sets FULL again after, also when the work fails', async (t) => {
  await withSqlite(async (db) => {
    for (let run = 0; run < 3; run++) {
      const during = await relaxedCommits(db, async (connection) => {
        await connection.transaction().execute((trx) => sql`insert into t (n) values (${run})`.execute(trx));
        return synchronous(connection);
      });
      t.is(during, 1, `run ${run}: NORMAL while the work ran`);
      t.is(await synchronous(db), 2, `run ${run}: FULL after`);
    }
    await t.throwsAsync(
      relaxedCommits(db, async () => Promise.reject(new Error('failed'))),
      { message: 'failed' },
    );
    t.is(await synchronous(db), 2);
    t.deepEqual(await numbers(db), [0, 1, 2]);
  });
});

test('MySQL has no direct path, and relaxedCommits runs its work on the database as it is', async (t) => {
  const db = openDatabase({ kind: 'mysql', url: 'mysql://root@127.0.0.1:1/none', timeoutMs: 100 });
  t.is(directWriterOf(db), undefined);
  t.is(await relaxedCommits(db, async (given) => given === db), true);
  await db.destroy();
});
