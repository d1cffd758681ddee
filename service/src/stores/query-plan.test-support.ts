// The plan a dialect makes for a compiled query, as JSON text a test can match: which index it uses is what matters.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { dialectOf } from './database.js';
import type { Database } from './schema.js';

/** EXPLAIN on MySQL/MariaDB, EXPLAIN QUERY PLAN on SQLite, run with the query's own parameters. */
export async function queryPlan(db: Kysely<Database>, query: CompiledQuery): Promise<string> {
  const explain = dialectOf(db) === 'mysql' ? sql.raw(`EXPLAIN ${query.sql}`) : sql.raw(`EXPLAIN QUERY PLAN ${query.sql}`);
  const { rows } = await db.executeQuery({ ...explain.compile(db), parameters: query.parameters });
  return JSON.stringify(rows);
}
