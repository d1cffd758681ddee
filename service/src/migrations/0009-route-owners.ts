import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../stores/database.js';

// Routes as code (issue 41): a route gains its owner (the team or tool that
// manages it, '' for none), and the change log becomes a history: one
// revision may hold several changes (an apply writes its whole plan in one),
// ordered by `seq`, and each change keeps the route before and after, its
// owner, the actor and the time.
//
// The log's key grows from (workspace, revision) to (workspace, revision,
// seq), which SQLite cannot alter in place: the table is rebuilt, the kept
// changes copied. What the old log did not hold is filled from what it did:
// `before` is the route's previous logged write (none when that was trimmed
// away), an upsert is a create when it is the route's first logged write at
// its creation time, and the time is the record's update time. Deletes
// carried no time: theirs is 0 (unknown), and no old change has an actor.

const MYSQL_TABLE = sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  await db.schema
    .alterTable('routes')
    .addColumn('owner', 'varchar(64)', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('route_history')
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    // The change's place inside its revision, from 0.
    .addColumn('seq', 'integer', (column) => column.notNull())
    // 'create', 'update' or 'delete'.
    .addColumn('kind', 'varchar(8)', (column) => column.notNull())
    .addColumn('route_id', 'varchar(40)', (column) => column.notNull())
    // The route before and after the change (JSON rows); NULL before a create and after a delete.
    .addColumn('before_record', 'text')
    .addColumn('after_record', 'text')
    // Epoch milliseconds; 0 when unknown.
    .addColumn('changed_at', 'bigint', (column) => column.notNull())
    .addColumn('actor', 'text', (column) => column.notNull())
    .addColumn('owner', 'varchar(64)', (column) => column.notNull())
    .addPrimaryKeyConstraint('route_history_pk', ['workspace', 'revision', 'seq'])
    .modifyEnd(mysql ? MYSQL_TABLE : sql``)
    .execute();
  const earlier = sql`FROM route_changes p WHERE p.workspace = c.workspace AND p.route_id = c.route_id AND p.revision < c.revision`;
  const field = (name: string) => sql`JSON_EXTRACT(c.record, ${sql.lit(`$.${name}`)})`;
  await sql`
    INSERT INTO route_history (workspace, revision, seq, kind, route_id, before_record, after_record, changed_at, actor, owner)
    SELECT c.workspace, c.revision, 0,
      CASE
        WHEN c.kind = 'delete' THEN 'delete'
        WHEN EXISTS (SELECT 1 ${earlier}) THEN 'update'
        WHEN ${field('created_at')} = ${field('updated_at')} THEN 'create'
        ELSE 'update'
      END,
      c.route_id,
      (SELECT p.record ${earlier} ORDER BY p.revision DESC LIMIT 1),
      c.record,
      CASE WHEN c.record IS NULL THEN 0 ELSE ${field('updated_at')} END,
      '', ''
    FROM route_changes c`.execute(db);
  await db.schema.dropTable('route_changes').execute();
  await db.schema.alterTable('route_history').renameTo('route_changes').execute();
}

/**
 * Back to one change per revision. A multi-change revision does not fit that
 * log, so the log starts empty: a watcher from before the downgrade is behind
 * the kept history and reloads the table, as after any trim.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  await db.schema.dropTable('route_changes').execute();
  await db.schema
    .createTable('route_changes')
    .addColumn('workspace', 'varchar(128)', (column) => column.notNull())
    .addColumn('revision', 'bigint', (column) => column.notNull())
    .addColumn('kind', 'varchar(8)', (column) => column.notNull())
    .addColumn('route_id', 'varchar(40)', (column) => column.notNull())
    .addColumn('record', 'text')
    .addPrimaryKeyConstraint('route_changes_pk', ['workspace', 'revision'])
    .modifyEnd(mysql ? MYSQL_TABLE : sql``)
    .execute();
  await db.schema.alterTable('routes').dropColumn('owner').execute();
}
