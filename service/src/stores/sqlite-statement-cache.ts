import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept; ours are a few dozen, the bound only guards against surprises. */
const MAX_CACHED_STATEMENTS = 256;

/**
 * A better-sqlite3 database whose `prepare` reuses statements by SQL text.
 * Kysely prepares every query anew, and compiling the SQL costs more than
 * running one of our indexed lookups. Safe because Kysely runs one query at a
 * time on its single SQLite connection and we never stream results.
 */
export function withStatementCache(database: SqliteDatabase): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size < MAX_CACHED_STATEMENTS) statements.set(sql, statement);
      }
      return statement;
    },
  };
}
