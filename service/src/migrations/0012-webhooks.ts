import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Webhooks (issue 42): endpoints per workspace with their signing secrets
// (kept: they sign every delivery), and the outbox. A message is one event's
// body, written once in the change's own transaction; a delivery is that
// message for one endpoint, with its state and the time it is due; attempts
// are its log. Claims read deliveries by (status, next_attempt_at).

export async function up(db: Kysely<unknown>): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  const table = mysql ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
  const text = mysql ? sql`mediumtext` : sql`text`;
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('url', 'varchar(2048)', (column) => column.notNull())
    // JSON array of event types and patterns.
    .addColumn('events', 'varchar(2048)', (column) => column.notNull())
    .addColumn('description', 'varchar(2000)', (column) => column.notNull())
    .addColumn('enabled', 'smallint', (column) => column.notNull())
    // Epoch milliseconds.
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addColumn('secret', 'varchar(100)', (column) => column.notNull())
    .addColumn('previous_secret', 'varchar(100)')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('failing_since', 'bigint')
    .modifyEnd(table)
    .execute();
  await db.schema.createIndex('webhook_endpoints_by_workspace').on('webhook_endpoints').columns(['workspace', 'id']).execute();
  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('type', 'varchar(40)', (column) => column.notNull())
    .addColumn('body', text, (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .modifyEnd(table)
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('webhook_id', 'varchar(40)', (column) => column.notNull())
    .addColumn('message_id', 'varchar(40)', (column) => column.notNull())
    .addColumn('status', 'varchar(16)', (column) => column.notNull())
    .addColumn('tries', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .modifyEnd(table)
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_by_webhook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'varchar(40)', (column) => column.notNull())
    .addColumn('seq', 'integer', (column) => column.notNull())
    .addColumn('at', 'bigint', (column) => column.notNull())
    .addColumn('status_code', 'integer', (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('error', 'varchar(1024)', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('webhook_attempts_key', ['delivery_id', 'seq'])
    .modifyEnd(table)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['webhook_attempts', 'webhook_deliveries', 'webhook_messages', 'webhook_endpoints'])
    await db.schema.dropTable(name).execute();
}
