import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { withoutQueryTimeout } from '../stores/mysql-query-timeout.js';
import { SwitchyardError } from '@switchyard/core';
import { isUnavailableError } from '../stores/database-errors.js';
import type { Database } from '../stores/schema.js';
import * as initial from './0001-initial.js';
import * as assetsByWorkspace from './0002-assets-by-workspace.js';
import * as assetVisibilityAndPolicies from './0003-asset-visibility-and-policies.js';
import * as routeRevisions from './0004-route-revisions.js';
import * as resumableUploads from './0005-resumable-uploads.js';
import * as assetNames from './0006-asset-names.js';
import * as mediaFacts from './0007-media-facts.js';
import * as assetChanges from './0008-asset-changes.js';
import * as routeOwners from './0009-route-owners.js';
import * as apiKeys from './0010-api-keys.js';
import * as versionsAndTrash from './0011-versions-and-trash.js';
import * as webhooks from './0012-webhooks.js';
import * as routesByOwner from './0013-routes-by-owner.js';

/**
 * Every migration, by name, in order. A static list rather than a folder scan,
 * so it works the same under tsx, bundlers and compiled output.
 * Append only; never edit a migration that has shipped.
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-initial': initial,
  '0002-assets-by-workspace': assetsByWorkspace,
  '0003-asset-visibility-and-policies': assetVisibilityAndPolicies,
  '0004-route-revisions': routeRevisions,
  '0005-resumable-uploads': resumableUploads,
  '0006-asset-names': assetNames,
  '0007-media-facts': mediaFacts,
  '0008-asset-changes': assetChanges,
  '0009-route-owners': routeOwners,
  '0010-api-keys': apiKeys,
  '0011-versions-and-trash': versionsAndTrash,
  '0012-webhooks': webhooks,
  '0013-routes-by-owner': routesByOwner,
});

export const migrationProvider: MigrationProvider = Object.freeze({
  getMigrations: async () => ({ ...MIGRATIONS }),
});

/**
 * Kysely's migrator, every step of it free of the per-query timeout (mysql-query-timeout.ts): a long
 * ALTER, or the wait for the lock while another process migrates, is not a stalled database.
 */
class UnboundedMigrator extends Migrator {
  override migrateToLatest(): ReturnType<Migrator['migrateToLatest']> {
    return withoutQueryTimeout(() => super.migrateToLatest());
  }
  override migrateTo(target: Parameters<Migrator['migrateTo']>[0]): ReturnType<Migrator['migrateTo']> {
    return withoutQueryTimeout(() => super.migrateTo(target));
  }
  override migrateUp(): ReturnType<Migrator['migrateUp']> {
    return withoutQueryTimeout(() => super.migrateUp());
  }
  override migrateDown(): ReturnType<Migrator['migrateDown']> {
    return withoutQueryTimeout(() => super.migrateDown());
  }
}

export function createMigrator(db: Kysely<Database>): Migrator {
  return new UnboundedMigrator({ db, provider: migrationProvider });
}

/**
 * Applies every pending migration and returns the names it applied (empty
 * when the schema was current). Safe to run from several instances at once:
 * Kysely's migrator takes a lock. Throws one SwitchyardError naming the failed
 * migration: `unavailable` when the database cannot be reached, else `internal`.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const { error, results = [] } = await createMigrator(db).migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error (usually a string): String() is all we know of it
    const reason = error instanceof Error ? error.message : String(error);
    const what = failed === undefined ? 'database migrations could not run' : `database migration "${failed}" failed`;
    throw new SwitchyardError(isUnavailableError(error) ? 'unavailable' : 'internal', `${what}: ${reason}`, [], { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
