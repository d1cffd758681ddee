import type { Kysely } from 'kysely';

// An apply with an owner (issue 41) reads that owner's routes first: without
// an index that read was every route of the workspace, filtered. Its rows
// come by (workspace, owner) now, in both dialects (64 + 128 characters of
// utf8mb4 fit InnoDB's key limit with room to spare).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('routes_by_owner').on('routes').columns(['workspace', 'owner']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('routes_by_owner').on('routes').execute();
}
