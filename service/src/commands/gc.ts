// `switchyard gc [--grace 1h] [--dry-run]`: purges expired versions and trash, removes blobs that nothing points at, expired resumable uploads, and partial writes a crash left.
import { collectGarbage, DEFAULT_GC_GRACE_MS } from '@switchyard/core';
import { parseCommandArgs, parseDuration, type CommandOutput } from '@switchyard/runtime';
import { loadServiceConfig } from '../config.js';
import { openCurrentStorage } from './current-storage.js';

export const GC_USAGE = `usage: switchyard gc [--grace <30m|2h|1d|0>] [--dry-run]

Purges the versions and trashed assets each workspace's policy no longer
keeps (keepVersions, retentionDays), with their blobs. Removes what a crash
or a lost replace race left: blobs no record, version or trash entry points
at, partial writes on disk and unfinished S3 multipart uploads; and resumable
uploads past their expiry (UPLOAD_EXPIRY_SECONDS), with their stored parts.
  --grace 1h   keep anything younger than this (default: 1h); 0 for none
  --dry-run    report what would go, delete nothing`;

function parseOptions(args: readonly string[]): { graceMs: number; dryRun: boolean; help: boolean } {
  const values = parseCommandArgs(args, { grace: { type: 'string' }, 'dry-run': { type: 'boolean' } }, GC_USAGE);
  const grace = values.grace;
  // `0` is allowed on purpose (tests, a stopped service); durations are otherwise positive.
  const graceMs = grace === undefined ? DEFAULT_GC_GRACE_MS : grace.trim() === '0' ? 0 : parseDuration(grace, '--grace') * 1000;
  return { graceMs, dryRun: values['dry-run'] === true, help: values.help === true };
}

export async function gcCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  const { graceMs, dryRun, help } = parseOptions(args);
  if (help) return void output.log(GC_USAGE);
  const config = loadServiceConfig(env);
  const storage = await openCurrentStorage(config.storage);
  try {
    const { scanned, deleted, abandoned, expiredUploads, expiredVersions, expiredTrash, warnings } = await collectGarbage({
      blobStore: storage.blobStore,
      assetStore: storage.assetStore,
      uploadStore: storage.uploadStore,
      graceMs,
      dryRun,
    });
    const verb = dryRun ? 'would delete' : 'deleted';
    for (const id of expiredUploads) output.log(`${verb} expired upload ${id}`);
    for (const id of expiredVersions) output.log(`${dryRun ? 'would purge' : 'purged'} version ${id}`);
    for (const id of expiredTrash) output.log(`${dryRun ? 'would purge' : 'purged'} trashed asset ${id}`);
    for (const key of deleted) output.log(`${verb} ${key}`);
    for (const name of abandoned) output.log(`${verb} partial write ${name}`);
    // Partial writes are named only when there are some, so the usual summary stays one short line.
    const partials =
      (abandoned.length > 0 ? ` and ${abandoned.length} partial writes` : '') +
      (expiredUploads.length > 0 ? ` and ${expiredUploads.length} expired uploads` : '') +
      (expiredVersions.length > 0 ? ` and ${expiredVersions.length} expired versions` : '') +
      (expiredTrash.length > 0 ? ` and ${expiredTrash.length} expired trashed assets` : '');
    output.log(`scanned ${scanned} blobs, ${verb} ${deleted.length}${partials} (grace ${graceMs / 1000} s)`);
    for (const warning of warnings) output.error(`warning: ${warning}`);
  } finally {
    await storage.close();
  }
}
