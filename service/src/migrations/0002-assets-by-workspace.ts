import type { Kysely } from 'kysely';

// Listing a workspace's assets newest first pages by id (a keyset); this
// index makes every page one range scan, whatever the other workspaces hold.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('assets_workspace_id').on('assets').columns(['workspace', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('assets_workspace_id').on('assets').execute();
}
