import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Private assets and signed links (visibility, and the link epoch every
// signature includes, so one update revokes all links of an asset), and one
// policy row per workspace that set one.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('assets')
    .addColumn('visibility', 'varchar(16)', (column) => column.notNull().defaultTo('public'))
    .execute();
  await db.schema
    .alterTable('assets')
    .addColumn('link_epoch', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  let policies = db.schema
    .createTable('workspace_policies')
    .addColumn('workspace', 'varchar(128)', (column) => column.primaryKey())
    // JSON array of media types.
    .addColumn('allowed_types', 'text', (column) => column.notNull())
    // NULL: the server's MAX_UPLOAD_BYTES, whatever it is at the time.
    .addColumn('max_upload_bytes', 'bigint')
    .addColumn('default_visibility', 'varchar(16)', (column) => column.notNull());
  if (dialectOf(db) === 'mysql') policies = policies.modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await policies.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('workspace_policies').execute();
  await db.schema.alterTable('assets').dropColumn('link_epoch').execute();
  await db.schema.alterTable('assets').dropColumn('visibility').execute();
}
