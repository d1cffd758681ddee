import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Workspace API keys (issue 45): one row per key, never its secret, only the
// SHA-256 digests of the current secret and of the one before the last roll
// (accepted until `previous_valid_until`). Calls look keys up by digest, so
// both digests are indexed (unique: a secret names one key).

export async function up(db: Kysely<unknown>): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('name', 'varchar(400)', (column) => column.notNull())
    // Space-separated scopes.
    .addColumn('scopes', 'varchar(255)', (column) => column.notNull())
    .addColumn('created_by', 'varchar(1024)', (column) => column.notNull())
    // Epoch milliseconds.
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    // Hex SHA-256.
    .addColumn('secret_digest', 'char(64)', (column) => column.notNull())
    .addColumn('previous_digest', 'char(64)')
    .addColumn('previous_valid_until', 'bigint')
    .modifyEnd(mysql ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``)
    .execute();
  await db.schema.createIndex('api_keys_by_secret').on('api_keys').column('secret_digest').unique().execute();
  await db.schema.createIndex('api_keys_by_previous').on('api_keys').column('previous_digest').unique().execute();
  await db.schema.createIndex('api_keys_by_workspace').on('api_keys').columns(['workspace', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
}
