import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Route tables that live: every route carries the revision it was last
// written at and its update time; each workspace has a revision that grows
// with every create, update and delete, and a change log written in the same
// transaction as the change (route_changes), which watchers read to follow
// the table without reloading it.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('routes')
    .addColumn('updated_at', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('routes')
    .addColumn('revision', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE routes SET updated_at = created_at`.execute(db);
  const exact = dialectOf(db) === 'mysql' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
  await db.schema
    .createTable('route_revisions')
    .addColumn('workspace', 'varchar(128)', (column) => column.primaryKey())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    .modifyEnd(exact)
    .execute();
  await db.schema
    .createTable('route_changes')
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    // 'upsert' or 'delete'.
    .addColumn('kind', 'varchar(8)', (column) => column.notNull())
    .addColumn('route_id', 'varchar(40)', (column) => column.notNull())
    // The record as written (JSON), for upserts; NULL for deletes.
    .addColumn('record', 'text')
    .addPrimaryKeyConstraint('route_changes_pk', ['workspace', 'revision'])
    .modifyEnd(exact)
    .execute();
  // ListRoutes pages by (workspace, created_at, id): the index 0001 made already serves them.
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('route_changes').execute();
  await db.schema.dropTable('route_revisions').execute();
  await db.schema.alterTable('routes').dropColumn('revision').execute();
  await db.schema.alterTable('routes').dropColumn('updated_at').execute();
}
