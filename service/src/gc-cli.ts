// `npm run gc [-- --grace 1h] [-- --dry-run]`: removes blobs that no asset record points at, and partial writes a crash left.
import { parseArgs } from 'node:util';
import { invalidArgument, SwitchyardError } from '../../lib/src/errors.js';
import { collectGarbage, DEFAULT_GC_GRACE_MS } from '../../lib/src/maintenance/collect-garbage.js';
import { runCommand } from './cli-main.js';
import { loadServiceConfig } from './config.js';
import { parseDuration } from './duration.js';
import { createMigrator } from './migrations/index.js';
import { openStorage } from './stores/open-storage.js';

const USAGE = 'usage: npm run gc -- [--grace <30m|2h|1d|0>] [--dry-run]';

function parseOptions(args: string[]): { graceMs: number; dryRun: boolean } {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { grace: { type: 'string' }, 'dry-run': { type: 'boolean' } }, strict: true }));
  } catch (error) {
    throw invalidArgument('arguments', `${(error as Error).message}\n${USAGE}`);
  }
  const grace = values.grace;
  // `0` is allowed on purpose (tests, a stopped service); durations are otherwise positive.
  const graceMs = grace === undefined ? DEFAULT_GC_GRACE_MS : grace.trim() === '0' ? 0 : parseDuration(grace, '--grace') * 1000;
  return { graceMs, dryRun: values['dry-run'] === true };
}

async function main(): Promise<void> {
  const { graceMs, dryRun } = parseOptions(process.argv.slice(2));
  const config = loadServiceConfig(process.env);
  // No migrations here: collecting garbage must never change the schema.
  const storage = await openStorage(config.storage, { migrate: false });
  try {
    const pending = (await createMigrator(storage.db).getMigrations()).filter((migration) => migration.executedAt === undefined);
    if (pending.length > 0) {
      throw new SwitchyardError('unavailable', `the database schema is not current (pending: ${pending.map((m) => m.name).join(', ')}): run npm run migrate first`);
    }
    const { scanned, deleted, abandoned, warnings } = await collectGarbage({ blobStore: storage.blobStore, assetStore: storage.assetStore, graceMs, dryRun });
    const verb = dryRun ? 'would delete' : 'deleted';
    for (const key of deleted) console.log(`${verb} ${key}`);
    for (const name of abandoned) console.log(`${verb} partial write ${name}`);
    // Partial writes are named only when there are some, so the usual summary stays one short line.
    const partials = abandoned.length > 0 ? ` and ${abandoned.length} partial writes` : '';
    console.log(`scanned ${scanned} blobs, ${verb} ${deleted.length}${partials} (grace ${graceMs / 1000} s)`);
    for (const warning of warnings) console.error(`warning: ${warning}`);
  } finally {
    await storage.close();
  }
}

await runCommand(main);
