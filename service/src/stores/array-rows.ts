/**
 * Rows as arrays of column values instead of objects keyed by column name,
 * for queries whose SQL starts with this comment (`preparedRowsQuery` puts it
 * there; both drivers send it on, and both databases ignore it). Our two
 * driver wrappers read it: the SQLite statement cache turns the statement to
 * better-sqlite3's `raw` mode, the MySQL pool asks mysql2 for `rowsAsArray`.
 *
 * Written by hand for speed: better-sqlite3 builds a row object one property
 * at a time, which cost twice what the query itself did for a page of 50
 * assets (a 51-row select: ~480 µs as objects, ~220 µs as arrays, median of
 * 12 × 1000 on the bench machine), and the SQLite driver's executeQuery was
 * the largest item (15 % of samples) in the rest-list-assets profile
 * (bench/README.md, "Latest results").
 */
export const ARRAY_ROWS = '/* rows as arrays */ ';

export function wantsArrayRows(sql: string): boolean {
  return sql.startsWith(ARRAY_ROWS);
}
