import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Migrations are frozen history: they describe the schema as it was then, so
// they use the untyped schema builder rather than today's table types.

/** MySQL compares strings case-insensitively by default; workspaces, ids and keys must compare exactly. */
function tableOptions<T extends string>(db: Kysely<unknown>, builder: CreateTableBuilder<T>): CreateTableBuilder<T> {
  return dialectOf(db) === 'mysql' ? builder.modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`) : builder;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('routes')
      .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
      .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
      .addColumn('method', 'varchar(16)', (column) => column.notNull())
      .addColumn('path', 'text', (column) => column.notNull())
      .addColumn('shape', 'text', (column) => column.notNull())
      // The duplicate rule keys on a hash: a 1024-character shape in utf8mb4 would exceed MySQL's 3072-byte index limit.
      .addColumn('shape_hash', 'char(64)', (column) => column.notNull())
      .addColumn('middleware', 'text', (column) => column.notNull())
      .addColumn('handler', 'varchar(255)', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addUniqueConstraint('routes_workspace_method_shape', ['workspace', 'method', 'shape_hash']),
  ).execute();
  // list() and count() per workspace, oldest first.
  await db.schema.createIndex('routes_workspace_created').on('routes').columns(['workspace', 'created_at', 'id']).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('assets')
      .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
      .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
      .addColumn('label', 'text', (column) => column.notNull())
      .addColumn('blob_id', 'varchar(40)', (column) => column.notNull())
      .addColumn('blob_key', 'varchar(512)', (column) => column.notNull())
      .addColumn('type', 'varchar(255)', (column) => column.notNull())
      .addColumn('size', 'bigint', (column) => column.notNull())
      .addColumn('sha256', 'char(64)', (column) => column.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('uploaded_at', 'bigint', (column) => column.notNull())
      .addColumn('version', 'integer', (column) => column.notNull())
      // Public file URLs name the blob: one current blob belongs to one asset.
      .addUniqueConstraint('assets_blob_id', ['blob_id']),
  ).execute();
  // get() is by primary key (then workspace); garbage collection asks by blob key.
  await db.schema.createIndex('assets_blob_key').on('assets').column('blob_key').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('assets').execute();
  await db.schema.dropTable('routes').execute();
}
