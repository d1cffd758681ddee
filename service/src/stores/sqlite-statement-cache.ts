import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { wantsArrayRows } from './array-rows.js';

/** Distinct SQL texts kept; ours are a few dozen, the bound only guards against surprises. */
const MAX_CACHED_STATEMENTS = 256;

/** What the cache needs of better-sqlite3: Kysely's database, whose statements can answer rows as arrays. */
export interface RawCapableDatabase extends SqliteDatabase {
  prepare(sql: string): SqliteStatement & { raw(toggle?: boolean): unknown };
}

/**
 * A better-sqlite3 database whose `prepare` reuses statements by SQL text.
 * Kysely prepares every query anew, and compiling the SQL costs more than
 * running one of our indexed lookups. Safe because Kysely runs one query at a
 * time on its single SQLite connection and we never stream results.
 * A query marked for array rows (array-rows.ts) gets a statement in raw mode.
 */
export function withStatementCache(database: RawCapableDatabase): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        const prepared = database.prepare(sql);
        if (wantsArrayRows(sql)) prepared.raw(true);
        statement = prepared;
        if (statements.size < MAX_CACHED_STATEMENTS) statements.set(sql, statement);
      }
      return statement;
    },
  };
}
