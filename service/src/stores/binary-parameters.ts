/**
 * Statements whose values go to MySQL as binary parameters of a prepared
 * statement (mysql2's `execute`) instead of escaped into the SQL text, for
 * SQL that starts with this comment (`bulkInsert` puts it there for the
 * tables that ask; SQLite prepares every statement anyway and ignores it).
 * mysql2 prepares each such SQL once per connection and keeps it.
 *
 * Written by hand for speed: a change-log row carries the route before and
 * after as JSON, whose quotes mysql2 escapes one character at a time and
 * MariaDB parses back out of the statement; as parameters they are copied.
 * Justified by route-apply-5000 (bench/hand-written-parts.md#binary-parameters).
 */
export const BINARY_PARAMETERS = '/* binary parameters */ ';

export function wantsBinaryParameters(sql: string): boolean {
  return sql.startsWith(BINARY_PARAMETERS);
}
