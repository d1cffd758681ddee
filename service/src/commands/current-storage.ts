import { SwitchyardError } from '@switchyard/core';
import { createMigrator } from '../migrations/index.js';
import { openStorage, type DatabaseStorage } from '../stores/open-storage.js';
import type { StorageConfig } from '../stores/storage-config.js';

/**
 * Storage for a data command (gc, backfill-metadata): it never changes the
 * schema itself, and refuses to work on one that is not current (run
 * `switchyard migrate` first), so it never reads or writes columns the code
 * expects but the database lacks.
 */
export async function openCurrentStorage(config: StorageConfig): Promise<DatabaseStorage> {
  const storage = await openStorage(config, { migrate: false });
  try {
    const pending = (await createMigrator(storage.db).getMigrations()).filter((migration) => migration.executedAt === undefined);
    if (pending.length > 0) {
      throw new SwitchyardError(
        'unavailable',
        `the database schema is not current (pending: ${pending.map((m) => m.name).join(', ')}): run switchyard migrate first`,
      );
    }
    return storage;
  } catch (error) {
    await storage.close();
    throw error;
  }
}
