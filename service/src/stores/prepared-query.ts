import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely';
import { ARRAY_ROWS } from './array-rows.js';
import type { ReadNow } from './sqlite-statement-cache.js';

/** Databases whose prepared reads may skip Kysely's executor (our SQLite ones, which have no plugins). */
const directReads = new WeakMap<object, ReadNow>();

/**
 * Lets prepared reads on `db` run through `readNow` instead of Kysely's
 * executor. Only for a Kysely built without plugins: the direct path skips
 * their result transforms (a `withPlugin` copy is another instance, so it
 * keeps Kysely's path).
 */
export function allowDirectReads<DB>(db: Kysely<DB>, readNow: ReadNow): void {
  directReads.set(db, readNow);
}

/**
 * A read built with Kysely's query builder once and run many times with new
 * parameters, not built and compiled on every call. The SQL text and the
 * parameter order come from Kysely itself, checked here against the sentinel
 * values the template was built with (each must be a value no other parameter
 * has). Justified by rest-get-asset (bench/hand-written-parts.md#prepared-queries).
 */
export function preparedQuery<DB, Row, Params extends readonly unknown[]>(
  db: Kysely<DB>,
  build: (...params: Params) => Compilable<Row>,
  sentinels: Params,
): (...params: Params) => Promise<QueryResult<Row>> {
  return prepare(db, build(...sentinels).compile(), sentinels, '');
}

/**
 * As preparedQuery, answering each row as the array of its selected columns in
 * the order selected (array-rows.ts: the cheaper form, in both dialects).
 */
export function preparedRowsQuery<DB, Params extends readonly unknown[]>(
  db: Kysely<DB>,
  build: (...params: Params) => Compilable<unknown>,
  sentinels: Params,
): (...params: Params) => Promise<QueryResult<readonly unknown[]>> {
  return prepare(db, build(...sentinels).compile() as CompiledQuery<readonly unknown[]>, sentinels, ARRAY_ROWS);
}

/**
 * As preparedQuery, for a statement run inside transactions: each call names
 * the connection to run on (a transaction, or the database itself).
 */
export function preparedStatement<DB, Row, Params extends readonly unknown[]>(
  build: (...params: Params) => Compilable<Row>,
  sentinels: Params,
): (on: Kysely<DB>, ...params: Params) => Promise<QueryResult<Row>> {
  const run = bind(build(...sentinels).compile(), sentinels, '');
  return (on, ...params) => run(on, params);
}

/** Runs on `db`; a SQLite database with no transaction open answers at once (sqlite-statement-cache.ts, ReadNow). */
function prepare<DB, Row>(
  db: Kysely<DB>,
  compiled: CompiledQuery<Row>,
  sentinels: readonly unknown[],
  prefix: string,
): (...params: readonly unknown[]) => Promise<QueryResult<Row>> {
  const { sql, arrange } = template(compiled, sentinels, prefix);
  const readNow = compiled.query.kind === 'SelectQueryNode' ? directReads.get(db) : undefined;
  return (...params) => {
    const parameters = arrange(params);
    if (readNow !== undefined) {
      try {
        const rows = readNow(sql, parameters);
        if (rows !== undefined) return Promise.resolve({ rows: rows as Row[] });
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return db.executeQuery<Row>({ ...compiled, sql, parameters });
  };
}

function bind<Row>(
  compiled: CompiledQuery<Row>,
  sentinels: readonly unknown[],
  prefix: string,
): <DB>(on: Kysely<DB>, params: readonly unknown[]) => Promise<QueryResult<Row>> {
  const { sql, arrange } = template(compiled, sentinels, prefix);
  return (on, params) => on.executeQuery<Row>({ ...compiled, sql, parameters: arrange(params) });
}

/** The query's SQL and a function putting a call's parameters in the places the sentinels had. */
function template(
  compiled: CompiledQuery<unknown>,
  sentinels: readonly unknown[],
  prefix: string,
): { sql: string; arrange(params: readonly unknown[]): unknown[] } {
  const sql = prefix + compiled.sql;
  const order = sentinels.map((sentinel) => compiled.parameters.indexOf(sentinel));
  if (compiled.parameters.length !== sentinels.length || order.some((index) => index < 0) || new Set(order).size !== order.length) {
    throw new Error(`preparedQuery: cannot map parameters of ${sql}`);
  }
  return {
    sql,
    arrange: (params) => {
      const parameters = new Array<unknown>(params.length);
      order.forEach((position, i) => (parameters[position] = params[i]));
      return parameters;
    },
  };
}
