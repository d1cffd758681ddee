import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Asset changes made visible (issue 40): each workspace's assets have a
// revision that grows with every upload, replace, update and delete
// (asset_revisions), and a change log written in the same transaction as the
// change (asset_changes), which watchers, histories and webhooks read. A
// batch delete is one revision with a row per asset, told apart by `seq`.

export async function up(db: Kysely<unknown>): Promise<void> {
  const exact = dialectOf(db) === 'mysql' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
  await db.schema
    .createTable('asset_revisions')
    .addColumn('workspace', 'varchar(128)', (column) => column.primaryKey())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    .modifyEnd(exact)
    .execute();
  await db.schema
    .createTable('asset_changes')
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    // The change's place within its revision (0 but in a batch delete).
    .addColumn('seq', 'integer', (column) => column.notNull())
    // 'asset.created', 'asset.replaced', 'asset.updated' or 'asset.deleted'.
    .addColumn('type', 'varchar(16)', (column) => column.notNull())
    .addColumn('asset_id', 'varchar(40)', (column) => column.notNull())
    // The principal's subject: a token's `sub`, of any length.
    .addColumn('actor', 'text', (column) => column.notNull())
    .addColumn('time', 'bigint', (column) => column.notNull())
    // The record as written (JSON); NULL for a delete.
    .addColumn('record', 'text')
    // A replace's displaced file (JSON: type, size, sha256); NULL otherwise.
    .addColumn('previous', 'text')
    .addPrimaryKeyConstraint('asset_changes_pk', ['workspace', 'revision', 'seq'])
    .modifyEnd(exact)
    .execute();
  // An asset's history, newest first, is a range on this index.
  await db.schema.createIndex('asset_changes_by_asset').on('asset_changes').columns(['workspace', 'asset_id', 'revision']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('asset_changes').execute();
  await db.schema.dropTable('asset_revisions').execute();
}
