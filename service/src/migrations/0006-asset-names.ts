import type { Kysely } from 'kysely';

// Asset names (the client's file name) and their search key, `nameKey` of the
// core (NFC, lower case): a case-insensitive prefix is then a plain range on
// an index in both dialects, since MySQL's utf8mb4_bin (the table's collation)
// and SQLite's BINARY compare code points and neither folds case as the core
// does. The index ends with the id, the listing's order and cursor.
// Rows from before have no name: "".

export async function up(db: Kysely<unknown>): Promise<void> {
  // 255 characters, not bytes, in both: utf8mb4 varchar counts characters; SQLite does not count.
  await db.schema
    .alterTable('assets')
    .addColumn('name', 'varchar(255)', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('assets')
    .addColumn('name_lower', 'varchar(255)', (column) => column.notNull().defaultTo(''))
    .execute();
  // 128 + 255 + 40 characters of utf8mb4: 1,692 bytes, inside InnoDB's 3,072-byte key limit.
  await db.schema.createIndex('assets_workspace_name').on('assets').columns(['workspace', 'name_lower', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('assets_workspace_name').on('assets').execute();
  await db.schema.alterTable('assets').dropColumn('name_lower').execute();
  await db.schema.alterTable('assets').dropColumn('name').execute();
}
