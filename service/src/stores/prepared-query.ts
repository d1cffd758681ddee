import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely';
import { ARRAY_ROWS } from './array-rows.js';

/**
 * A read built with Kysely's query builder once and run many times with new
 * parameters. Building and compiling the query on every call was about 4 % of
 * the server's CPU in the rest-get-asset and file-serve-16kib profiles
 * (bench/README.md, "Latest results"); the SQL text and the parameter order
 * come from Kysely itself, checked here against the sentinel values the
 * template was built with (each must be a value no other parameter has).
 */
export function preparedQuery<DB, Row, Params extends readonly unknown[]>(db: Kysely<DB>, build: (...params: Params) => Compilable<Row>, sentinels: Params): (...params: Params) => Promise<QueryResult<Row>> {
  return prepare(db, build(...sentinels).compile(), sentinels, '');
}

/**
 * As preparedQuery, answering each row as the array of its selected columns in
 * the order selected (array-rows.ts: the cheaper form, in both dialects).
 */
export function preparedRowsQuery<DB, Params extends readonly unknown[]>(db: Kysely<DB>, build: (...params: Params) => Compilable<unknown>, sentinels: Params): (...params: Params) => Promise<QueryResult<readonly unknown[]>> {
  return prepare(db, build(...sentinels).compile() as CompiledQuery<readonly unknown[]>, sentinels, ARRAY_ROWS);
}

/**
 * As preparedQuery, for a statement run inside transactions: each call names
 * the connection to run on (a transaction, or the database itself).
 */
export function preparedStatement<DB, Row, Params extends readonly unknown[]>(build: (...params: Params) => Compilable<Row>, sentinels: Params): (on: Kysely<DB>, ...params: Params) => Promise<QueryResult<Row>> {
  const run = bind(build(...sentinels).compile(), sentinels, '');
  return (on, ...params) => run(on, params);
}

function prepare<DB, Row>(db: Kysely<DB>, compiled: CompiledQuery<Row>, sentinels: readonly unknown[], prefix: string): (...params: readonly unknown[]) => Promise<QueryResult<Row>> {
  const run = bind(compiled, sentinels, prefix);
  return (...params) => run(db, params);
}

function bind<Row>(compiled: CompiledQuery<Row>, sentinels: readonly unknown[], prefix: string): <DB>(on: Kysely<DB>, params: readonly unknown[]) => Promise<QueryResult<Row>> {
  const template: CompiledQuery<Row> = { ...compiled, sql: prefix + compiled.sql };
  const order = sentinels.map((sentinel) => template.parameters.indexOf(sentinel));
  if (template.parameters.length !== sentinels.length || order.some((index) => index < 0) || new Set(order).size !== order.length) {
    throw new Error(`preparedQuery: cannot map parameters of ${template.sql}`);
  }
  return (on, params) => {
    const parameters = new Array<unknown>(params.length);
    order.forEach((position, i) => (parameters[position] = params[i]));
    return on.executeQuery<Row>({ ...template, parameters });
  };
}
