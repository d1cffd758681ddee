import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Versions and trash (issue 43): a replace keeps the displaced file as a row
// of asset_versions (its blob stays), a delete moves the asset's row to
// asset_trash (its versions stay, under the same asset id), both until the
// workspace policy's keepVersions / retentionDays let `switchyard gc` purge
// them. assets.uploaded_by names who uploaded the current file, so a version
// can say it ('' for files from before). asset_changes.detail says why a
// change was made when it was a restore or a purge (JSON, NULL otherwise).
// The policy's two numbers are NULL for "the default".

/** A file's columns, as in `assets`: the current one there, a kept one here. */
function withFileColumns<T extends string>(table: CreateTableBuilder<T>): CreateTableBuilder<T> {
  return (
    table
      .addColumn('blob_id', 'varchar(40)', (column) => column.notNull())
      .addColumn('blob_key', 'varchar(512)', (column) => column.notNull())
      .addColumn('type', 'varchar(255)', (column) => column.notNull())
      .addColumn('size', 'bigint', (column) => column.notNull())
      .addColumn('sha256', 'char(64)', (column) => column.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('duration_ms', 'bigint')
      .addColumn('pages', 'integer')
      .addColumn('placeholder', 'varchar(64)')
      .addColumn('facts_version', 'integer', (column) => column.notNull().defaultTo(0))
      .addColumn('uploaded_at', 'bigint', (column) => column.notNull())
      // A token's `sub`; 1024 characters as api_keys.created_by.
      .addColumn('uploaded_by', 'varchar(1024)', (column) => column.notNull().defaultTo(''))
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const exact = dialectOf(db) === 'mysql' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
  await db.schema
    .alterTable('assets')
    .addColumn('uploaded_by', 'varchar(1024)', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('asset_changes').addColumn('detail', 'text').execute();
  await db.schema.alterTable('workspace_policies').addColumn('keep_versions', 'integer').execute();
  await db.schema.alterTable('workspace_policies').addColumn('retention_days', 'integer').execute();

  await withFileColumns(
    db.schema
      .createTable('asset_versions')
      .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
      .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
      .addColumn('asset_id', 'varchar(40)', (column) => column.notNull()),
  )
    .addColumn('name', 'varchar(255)', (column) => column.notNull().defaultTo(''))
    .addColumn('replaced_at', 'bigint', (column) => column.notNull())
    .modifyEnd(exact)
    .execute();
  // An asset's versions, newest first; and blob references for gc.
  await db.schema
    .createIndex('asset_versions_by_asset')
    .on('asset_versions')
    .columns(['workspace', 'asset_id', 'replaced_at', 'id'])
    .execute();
  await db.schema.createIndex('asset_versions_blob_key').on('asset_versions').column('blob_key').execute();

  await withFileColumns(
    db.schema
      .createTable('asset_trash')
      .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
      .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
      .addColumn('label', 'text', (column) => column.notNull())
      .addColumn('name', 'varchar(255)', (column) => column.notNull().defaultTo(''))
      .addColumn('name_lower', 'varchar(255)', (column) => column.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('version', 'integer', (column) => column.notNull())
      .addColumn('visibility', 'varchar(16)', (column) => column.notNull())
      .addColumn('link_epoch', 'integer', (column) => column.notNull()),
  )
    .addColumn('deleted_at', 'bigint', (column) => column.notNull())
    .addColumn('deleted_by', 'varchar(1024)', (column) => column.notNull())
    .modifyEnd(exact)
    .execute();
  await db.schema.createIndex('asset_trash_by_workspace').on('asset_trash').columns(['workspace', 'id']).execute();
  await db.schema.createIndex('asset_trash_blob_key').on('asset_trash').column('blob_key').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('asset_trash').execute();
  await db.schema.dropTable('asset_versions').execute();
  await db.schema.alterTable('workspace_policies').dropColumn('retention_days').execute();
  await db.schema.alterTable('workspace_policies').dropColumn('keep_versions').execute();
  await db.schema.alterTable('asset_changes').dropColumn('detail').execute();
  await db.schema.alterTable('assets').dropColumn('uploaded_by').execute();
}
