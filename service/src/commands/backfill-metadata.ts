// `switchyard backfill-metadata [--limit N] [--dry-run]`: reads the media facts of assets stored before the service read them.
import { backfillMediaFacts, SwitchyardError } from '@switchyard/core';
import { parseCommandArgs, type CommandOutput } from '@switchyard/runtime';
import { loadServiceConfig } from '../config.js';
import { openCurrentStorage } from './current-storage.js';

export const BACKFILL_USAGE = `usage: switchyard backfill-metadata [--limit <n>] [--dry-run] [--quiet]

Reads the media facts (width, height, durationMs, pages, placeholder) of the
assets stored before this version read them at upload, or that were stored
while every parser was busy: one file at a time, with the bounds of uploads.
Safe while the service runs (a file replaced meanwhile keeps its new facts);
a run stopped or limited goes on where it left off.
  --limit 1000  describe at most this many assets
  --dry-run     read and report, write nothing
  --quiet       only the summary line`;

function parseOptions(args: readonly string[]): { limit?: number; dryRun: boolean; quiet: boolean; help: boolean } {
  const values = parseCommandArgs(
    args,
    { limit: { type: 'string' }, 'dry-run': { type: 'boolean' }, quiet: { type: 'boolean' } },
    BACKFILL_USAGE,
  );
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = /^\d{1,9}$/.test(values.limit) ? Number(values.limit) : NaN;
    if (!(limit > 0))
      throw new SwitchyardError(
        'invalid_argument',
        `--limit must be a whole number above 0, not ${JSON.stringify(values.limit)}\n\n${BACKFILL_USAGE}`,
      );
  }
  return { limit, dryRun: values['dry-run'] === true, quiet: values.quiet === true, help: values.help === true };
}

export async function backfillMetadataCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  const { limit, dryRun, quiet, help } = parseOptions(args);
  if (help) return void output.log(BACKFILL_USAGE);
  const config = loadServiceConfig(env);
  const storage = await openCurrentStorage(config.storage);
  try {
    const report = await backfillMediaFacts({
      assetStore: storage.assetStore,
      blobStore: storage.blobStore,
      mediaFacts: { maxPixels: config.transforms.maxPixels },
      limit,
      dryRun,
      onAsset: quiet ? undefined : ({ workspace, id, type, facts }) => output.log(`${workspace}/${id} ${type} ${JSON.stringify(facts)}`),
    });
    const verb = dryRun ? 'would describe' : 'described';
    output.log(`${verb} ${report.described} assets; ${report.changed} changed meanwhile, ${report.skipped} left for a later run`);
  } finally {
    await storage.close();
  }
}
