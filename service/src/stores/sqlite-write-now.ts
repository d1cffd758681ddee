import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';

/** A statement of the direct path, prepared once per SQL text. */
export type PrepareNow = (sql: string) => SqliteDatabase.Statement;

/**
 * Runs `work` as one transaction, synchronously on better-sqlite3, committed
 * without a flush (relaxedCommits). Answers what `work` answered; rolls back
 * when it throws.
 */
export type WriteNow = <T>(work: (prepare: PrepareNow) => T) => Promise<T>;

/** Our SQLite databases (openDatabase), by their Kysely instance. */
const databases = new WeakMap<object, SqliteDatabase.Database>();

export function allowDirectWrites<DB>(db: Kysely<DB>, database: SqliteDatabase.Database): void {
  databases.set(db, database);
}

/**
 * Runs `work` on `db`'s connection, held for it alone, with SQLite's commits
 * made without waiting for the disk (`synchronous = NORMAL`), then restores
 * `FULL`: for records whose loss in a power cut only repeats work (a webhook
 * delivery claimed or recorded is sent again; the outbox rows themselves are
 * written with their change, flushed). Such commits survive the process being
 * killed: the WAL is written before the commit returns. Elsewhere (MySQL)
 * `work` runs on `db` as it is.
 */
export function relaxedCommits<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const database = databases.get(db);
  if (database === undefined) return work(db);
  return db.connection().execute(async (connection) => {
    // exec, not a kept prepared statement: a PRAGMA's setting is applied when it is
    // prepared, and a kept one did not set it again on its first runs (better-sqlite3 12).
    database.exec('PRAGMA synchronous = NORMAL');
    try {
      return await work(connection);
    } finally {
      database.exec('PRAGMA synchronous = FULL');
    }
  });
}

/**
 * A small write run outside Kysely: its statements, the BEGIN and the COMMIT
 * go straight to better-sqlite3 with no promise between them, while Kysely's
 * connection is held (so no Kysely transaction is open on the connection, and
 * none starts until this one ends), committed as relaxedCommits does.
 * Undefined for a database that is not one of ours on SQLite (MySQL keeps
 * Kysely's path).
 * Justified by webhook-delivery (bench/hand-written-parts.md#direct-sqlite-writes).
 */
export function directWriterOf<DB>(db: Kysely<DB>): WriteNow | undefined {
  const database = databases.get(db);
  if (database === undefined) return undefined;
  const statements = new Map<string, SqliteDatabase.Statement>();
  const prepare: PrepareNow = (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = database.prepare(sql)));
    return statement;
  };
  // One transaction function for every write: better-sqlite3 wraps `fn` in BEGIN and COMMIT (ROLLBACK when it throws).
  const inTransaction = database.transaction((work: (prepare: PrepareNow) => unknown) => work(prepare));
  return <T>(work: (prepare: PrepareNow) => T) => relaxedCommits(db, async () => inTransaction(work) as T);
}
