import type { CompiledQuery, Kysely } from 'kysely';
import { BINARY_PARAMETERS } from './binary-parameters.js';
import type { Database } from './schema.js';

/** Row counts whose statement is kept; a write of another count compiles its own (and keeps it, up to this many). */
const KEPT_STATEMENTS = 8;

/**
 * A multi-row INSERT of `columns` into `table`, its rows given as arrays of
 * values in column order. Kysely builds and compiles the statement once per
 * row count, from sentinel values; a call then hands the flat values to that
 * statement, not building a query tree of one node per value (6,000 for 500
 * routes) and compiling it again for every run of rows. The sentinels check
 * that Kysely's parameters are the rows in order, so a change in how it
 * compiles is an error here, not a misplaced value. With `binaryParameters`,
 * MySQL gets the values as a prepared statement's (binary-parameters.ts): for
 * rows with long text, such as JSON.
 * Justified by route-apply-5000 (bench/hand-written-parts.md#bulk-insert).
 */
export function bulkInsert<Table extends keyof Database>(
  table: Table,
  columns: readonly (keyof Database[Table] & string)[],
  options: { readonly binaryParameters?: boolean } = {},
): (on: Kysely<Database>, rows: readonly (readonly unknown[])[]) => Promise<void> {
  const kept = new Map<number, CompiledQuery>();
  const statementOf = (on: Kysely<Database>, count: number): CompiledQuery => {
    const known = kept.get(count);
    if (known !== undefined) return known;
    const sentinels = Array.from({ length: count }, (_, row) => columns.map((column) => `\0${row}\0${column}`));
    const values = sentinels.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
    // The builder's types want the table's own row type; the values are sentinels standing in for one.
    const compiled = on
      .insertInto(table)
      .values(values as never)
      .compile();
    const expected = sentinels.flat();
    if (compiled.parameters.length !== expected.length || compiled.parameters.some((parameter, i) => parameter !== expected[i]))
      throw new Error(`bulkInsert: Kysely's parameters of ${table} are not its rows in order`);
    const statement = options.binaryParameters ? { ...compiled, sql: `${BINARY_PARAMETERS}${compiled.sql}` } : compiled;
    if (kept.size >= KEPT_STATEMENTS) kept.clear();
    kept.set(count, statement);
    return statement;
  };
  return async (on, rows) => {
    if (rows.length === 0) return;
    const compiled = statementOf(on, rows.length);
    const parameters = new Array<unknown>(rows.length * columns.length);
    let at = 0;
    for (const row of rows) {
      if (row.length !== columns.length) throw new Error(`bulkInsert: a row of ${table} has ${row.length} values, not ${columns.length}`);
      for (const value of row) parameters[at++] = value;
    }
    await on.executeQuery({ ...compiled, parameters });
  };
}
