import type { Kysely } from 'kysely';

// Media facts (issue 32): a video's and an image's width and height (the
// columns of 0001), an audio or video file's duration, a PDF's page count, an
// image's ThumbHash placeholder, and the version of the describer that read
// them. Rows from before have version 0: `switchyard backfill-metadata`
// describes them. And the workspace policy's stripImageMetadata.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('duration_ms', 'bigint').execute();
  await db.schema.alterTable('assets').addColumn('pages', 'integer').execute();
  // A ThumbHash is at most 25 bytes: 36 characters of base64.
  await db.schema.alterTable('assets').addColumn('placeholder', 'varchar(64)').execute();
  await db.schema
    .alterTable('assets')
    .addColumn('facts_version', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('workspace_policies')
    .addColumn('strip_image_metadata', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspace_policies').dropColumn('strip_image_metadata').execute();
  for (const column of ['facts_version', 'placeholder', 'pages', 'duration_ms'])
    await db.schema.alterTable('assets').dropColumn(column).execute();
}
