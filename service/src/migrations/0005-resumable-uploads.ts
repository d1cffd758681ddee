import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Resumable uploads (tus): one row per upload, shared by every instance so any
// of them can continue any upload. The offset is the compare-and-set token of
// appends; `appending_by` the lease that keeps a second append from streaming
// bytes that could not be kept; `finishing_since` is the claim of the one caller turning a
// complete upload into an asset.

export async function up(db: Kysely<unknown>): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  const exact = mysql ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
  // The parts list of a large concatenation outgrows TEXT's 64 KiB on MySQL.
  const longText = mysql ? sql`mediumtext` : sql`text`;
  await db.schema
    .createTable('resumable_uploads')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    // NULL while the client defers the length.
    .addColumn('upload_length', 'bigint')
    .addColumn('upload_offset', 'bigint', (column) => column.notNull())
    // JSON array of {key, size}, in order.
    .addColumn('parts', longText, (column) => column.notNull())
    .addColumn('is_partial', 'integer', (column) => column.notNull())
    // JSON object: filename, label, visibility, replace.
    .addColumn('intent', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('asset_id', 'varchar(40)')
    .addColumn('finishing_since', 'bigint')
    // The append lease: who is appending, since (or last renewed) when.
    .addColumn('appending_by', 'varchar(40)')
    .addColumn('appending_since', 'bigint')
    .modifyEnd(exact)
    .execute();
  // gc looks for expired uploads.
  await db.schema.createIndex('resumable_uploads_by_expiry').on('resumable_uploads').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('resumable_uploads').execute();
}
