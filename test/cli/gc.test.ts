// `switchyard gc` (npm run gc) through the CLI's main, in process, against the storage of a DATA_DIR.
import test from 'ava';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runCli, type CliRun } from '../support/cli.js';
import { sampleAsset, sampleContent } from '@switchyard/core/testing';
import { openStorage, type StorageConfig } from '@switchyard/service';

function gc(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runCli(['gc', ...args], {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    BLOB_STORE: '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
}

/** A DATA_DIR as the service leaves it (same layout as config.ts derives), with one current blob and two orphans. */
async function dataDirWithGarbage(t: import('ava').ExecutionContext) {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gc-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config: StorageConfig = {
    database: { kind: 'sqlite', file: join(dir, 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'files') },
  };
  const storage = await openStorage(config);
  const record = sampleAsset('ws');
  const keys = { current: record.blobKey, old: 'ws/as_old/crashed.bin', young: 'ws/as_new/uploading.bin' };
  for (const key of Object.values(keys)) await storage.blobStore.put(key, Readable.from([Buffer.from(key)], { objectMode: false }));
  await storage.assetStore.insert(record, { actor: 'test', time: new Date() });
  await storage.close();
  const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
  for (const key of [keys.current, keys.old]) await utimes(join(dir, 'files', ...key.split('/')), twoHoursAgo, twoHoursAgo);
  return { dir, keys };
}

test('gc deletes old unreferenced blobs only; --dry-run first shows them and deletes nothing', async (t) => {
  const { dir, keys } = await dataDirWithGarbage(t);
  const dry = await gc(dir, '--dry-run');
  t.is(dry.code, 0, dry.stderr);
  t.is(dry.stdout, `would delete ${keys.old}\nscanned 3 blobs, would delete 1 (grace 3600 s)\n`);
  const real = await gc(dir);
  t.is(real.code, 0, real.stderr);
  t.is(real.stdout, `deleted ${keys.old}\nscanned 3 blobs, deleted 1 (grace 3600 s)\n`);
  const none = await gc(dir, '--grace', '3h');
  t.is(none.stdout, 'scanned 2 blobs, deleted 0 (grace 10800 s)\n');
  const zero = await gc(dir, '--grace', '0');
  t.is(zero.stdout, `deleted ${keys.young}\nscanned 2 blobs, deleted 1 (grace 0 s)\n`, 'with no grace, the young orphan goes too');
});

test('a database without the schema is refused before anything is deleted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gc-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const run = await gc(dir, '--grace', '0');
  t.is(run.code, 1);
  t.is(
    run.stderr,
    'the database schema is not current (pending: 0001-initial, 0002-assets-by-workspace, 0003-asset-visibility-and-policies, 0004-route-revisions, 0005-resumable-uploads, 0006-asset-names, 0007-media-facts, 0008-asset-changes, 0009-route-owners, 0010-api-keys, 0011-versions-and-trash, 0012-webhooks, 0013-routes-by-owner): run switchyard migrate first\n',
  );
});

test('bad arguments exit 2 (a usage error, as every switchyard command) with a message naming the problem', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gc-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const badGrace = await gc(dir, '--grace', 'soon');
  t.is(badGrace.code, 2);
  t.regex(badGrace.stderr, /--grace: "soon" is not a duration/);
  const unknown = await gc(dir, '--force');
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /Unknown option '--force'[\s\S]*usage: switchyard gc/);
});

test('gc purges a version and a trashed asset past retentionDays with their blobs, and says so; --dry-run only names them', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gc-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config: StorageConfig = {
    database: { kind: 'sqlite', file: join(dir, 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'files') },
  };
  const storage = await openStorage(config);
  const monthAgo = { actor: 'test', time: new Date(Date.now() - 30 * 86_400_000) };
  const kept = sampleAsset('ws');
  const current = sampleContent('ws');
  const trashed = sampleAsset('ws');
  for (const key of [kept.blobKey, current.blobKey, trashed.blobKey])
    await storage.blobStore.put(key, Readable.from([Buffer.from(key)], { objectMode: false }));
  await storage.assetStore.insert(kept, monthAgo);
  await storage.assetStore.insert(trashed, monthAgo);
  const versionId = 'ver_01hzzzzzzzzzzzzzzzzzzzzzzz';
  await storage.assetStore.swap('ws', kept.id, 1, current, { keepVersion: { versionId, keep: 5 } }, monthAgo);
  await storage.assetStore.delete('ws', trashed.id, monthAgo, { trash: true });
  await storage.close();

  const dry = await gc(dir, '--dry-run', '--grace', '3h');
  t.is(dry.code, 0, dry.stderr);
  t.is(
    dry.stdout,
    `would purge version ${versionId}\nwould purge trashed asset ${trashed.id}\n` +
      'scanned 3 blobs, would delete 0 and 1 expired versions and 1 expired trashed assets (grace 10800 s)\n',
  );
  const real = await gc(dir, '--grace', '3h');
  t.is(real.code, 0, real.stderr);
  t.is(
    real.stdout,
    `purged version ${versionId}\npurged trashed asset ${trashed.id}\n` +
      'scanned 1 blobs, deleted 0 and 1 expired versions and 1 expired trashed assets (grace 10800 s)\n',
  );
  const after = await openStorage(config, { migrate: false });
  t.teardown(() => after.close());
  const keys: string[] = [];
  for await (const blob of after.blobStore.list()) keys.push(blob.key);
  t.deepEqual(keys, [current.blobKey], 'only the current file is left');
});
