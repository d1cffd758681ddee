/**
 * Rows as arrays of column values instead of objects keyed by column name,
 * for queries whose SQL starts with this comment (`preparedRowsQuery` puts it
 * there; both drivers send it on, and both databases ignore it). Our two
 * driver wrappers read it: the SQLite statement cache turns the statement to
 * better-sqlite3's `raw` mode, the MySQL pool asks mysql2 for `rowsAsArray`.
 *
 * Written by hand for speed: better-sqlite3 builds a row object one property
 * at a time; an array of the column values is cheaper to make.
 * Justified by rest-list-assets (bench/hand-written-parts.md#array-rows).
 */
export const ARRAY_ROWS = '/* rows as arrays */ ';

export function wantsArrayRows(sql: string): boolean {
  return sql.startsWith(ARRAY_ROWS);
}
