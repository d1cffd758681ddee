// `npm run migrate`: applies pending database migrations (MySQL or SQLite, from the environment) and exits.
import { runCommand } from './cli-main.js';
import { loadServiceConfig } from './config.js';
import { migrateToLatest } from './migrations/index.js';
import { openDatabase } from './stores/database.js';
import type { DatabaseConfig } from './stores/storage-config.js';

/** Where the records live, without credentials. */
function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite ${database.file}`;
  const url = new URL(database.url);
  return `MySQL ${url.host}${url.pathname}`;
}

async function main(): Promise<void> {
  const { storage } = loadServiceConfig(process.env);
  const where = describeDatabase(storage.database);
  const db = openDatabase(storage.database);
  try {
    const applied = await migrateToLatest(db);
    if (applied.length === 0) console.log(`${where}: already up to date`);
    for (const name of applied) console.log(`${where}: applied ${name}`);
  } finally {
    await db.destroy();
  }
}

await runCommand(main);
