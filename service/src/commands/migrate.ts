// `switchyard migrate`: applies pending database migrations (MySQL or SQLite, from the environment) and exits.
import { parseCommandArgs, type CommandOutput } from '@switchyard/runtime';
import { loadServiceConfig } from '../config.js';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from '../stores/database.js';
import type { DatabaseConfig } from '../stores/storage-config.js';

export const MIGRATE_USAGE = `usage: switchyard migrate

Applies pending database migrations to the database of the environment
(DATABASE_URL, or SQLite in DATA_DIR) and exits. The service also applies
them when it starts.`;

/** Where the records live, without credentials. */
function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite ${database.file}`;
  const url = new URL(database.url);
  return `MySQL ${url.host}${url.pathname}`;
}

export async function migrateCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  if (parseCommandArgs(args, {}, MIGRATE_USAGE).help) return void output.log(MIGRATE_USAGE);
  const { storage } = loadServiceConfig(env);
  const where = describeDatabase(storage.database);
  const db = openDatabase(storage.database);
  try {
    const applied = await migrateToLatest(db);
    if (applied.length === 0) output.log(`${where}: already up to date`);
    for (const name of applied) output.log(`${where}: applied ${name}`);
  } finally {
    await db.destroy();
  }
}
