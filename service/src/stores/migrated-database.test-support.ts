// For the store tests beside the sources: a migrated database of either kind for one test.
import type { ExecutionContext } from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { createTestMysqlDatabase, stillReachable } from '../../../test/support/mysql.js';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from './database.js';
import type { Database } from './schema.js';

/**
 * Runs `run` on a freshly migrated database: a new MySQL database (dropped when the test ends;
 * register MySQL tests through `testNeedingMysql()`), or an SQLite file in a scratch folder.
 */
export async function withMigratedDatabase(
  t: ExecutionContext,
  kind: 'sqlite' | 'mysql',
  run: (db: Kysely<Database>) => Promise<void>,
): Promise<void> {
  const dir = kind === 'sqlite' ? await mkdtemp(join(tmpdir(), 'switchyard-store-test-')) : undefined;
  const db =
    dir === undefined
      ? openDatabase({ kind: 'mysql', url: stillReachable(await createTestMysqlDatabase(t)).url })
      : openDatabase({ kind: 'sqlite', file: join(dir, 'records.sqlite') });
  try {
    await migrateToLatest(db);
    await run(db);
  } finally {
    await db.destroy();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}
