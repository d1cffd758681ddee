import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { wantsArrayRows } from './array-rows.js';

/** Distinct SQL texts kept; ours are a few dozen, the bound only guards against surprises. */
const MAX_CACHED_STATEMENTS = 256;

/** What the cache needs of better-sqlite3: Kysely's database, whose statements can answer rows as arrays. */
export interface RawCapableDatabase extends SqliteDatabase {
  prepare(sql: string): SqliteStatement & { raw(toggle?: boolean): unknown };
  /** better-sqlite3: a transaction is open on the connection. A database without it never reads directly. */
  readonly inTransaction?: boolean;
}

/**
 * Runs a read at once, outside Kysely, when no transaction is open (undefined
 * when one is: the caller then queues behind it through Kysely). better-sqlite3
 * is synchronous, so between Kysely's queries the connection is idle and a
 * read here sees only committed rows, as one queued through Kysely's
 * connection lock would; it may run ahead of writes still waiting in that
 * queue, which have not completed for anyone yet.
 *
 * That lock costs promises and closures per query, which a read here does not.
 * Justified by bench/tools/in-process-calls.ts (bench/hand-written-parts.md#direct-sqlite-reads).
 */
export type ReadNow = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

/**
 * A better-sqlite3 database whose `prepare` reuses statements by SQL text.
 * Kysely prepares every query anew, and compiling the SQL costs more than
 * running one of our indexed lookups. Safe because Kysely runs one query at a
 * time on its single SQLite connection and we never stream results.
 * A query marked for array rows (array-rows.ts) gets a statement in raw mode.
 */
export function withStatementCache(database: RawCapableDatabase): SqliteDatabase & { readonly readNow: ReadNow } {
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      const prepared = database.prepare(sql);
      if (wantsArrayRows(sql)) prepared.raw(true);
      statement = prepared;
      if (statements.size < MAX_CACHED_STATEMENTS) statements.set(sql, statement);
    }
    return statement;
  };
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare,
    readNow: (sql, parameters) => (database.inTransaction === false ? prepare(sql).all(parameters) : undefined),
  };
}
