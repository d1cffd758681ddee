// Garbage collection on real storage: SQLite records and blobs on disk, ages from file times.
import test, { type ExecutionContext } from 'ava';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { collectGarbage } from '@switchyard/core';
import { sampleAsset, sampleContent, uniqueName } from '@switchyard/core/testing';
import { openStorage } from './open-storage.js';

/** The author of the fixture's writes; the change log is not under test here. */
const by = { actor: 'gc-test', time: new Date(0) };

/** SQLite and a disk store in a fresh temp folder, removed after the test. */
async function diskStorage(t: ExecutionContext): Promise<{ root: string; storage: Awaited<ReturnType<typeof openStorage>> }> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gc-'));
  const root = join(dir, 'files');
  const storage = await openStorage({ database: { kind: 'sqlite', file: join(dir, 'db.sqlite') }, blobs: { kind: 'disk', root } });
  t.teardown(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { root, storage };
}

test('disk + sqlite: old orphans and replaced-away blobs go, current and young blobs stay, emptied folders are pruned', async (t) => {
  const { root, storage } = await diskStorage(t);
  const { blobStore, assetStore } = storage;
  const put = (key: string) => blobStore.put(key, Readable.from([Buffer.from(key)], { objectMode: false }));
  const age = (key: string, hours: number) => {
    const then = new Date(Date.now() - hours * 3_600_000);
    return utimes(join(root, ...key.split('/')), then, then);
  };

  const workspace = uniqueName();
  const record = sampleAsset(workspace, { blobKey: `${workspace}/as_1/current.bin` });
  await put(record.blobKey);
  await assetStore.insert(record, by);
  const replacement = sampleContent(workspace, { blobKey: `${workspace}/as_1/replacement.bin` });
  await put(replacement.blobKey);
  await assetStore.swap(workspace, record.id, 1, replacement, {}, by);
  const oldOrphan = `${workspace}/as_2/crashed.bin`;
  const youngOrphan = `${workspace}/as_3/uploading.bin`;
  await put(oldOrphan);
  await put(youngOrphan);
  for (const key of [record.blobKey, replacement.blobKey, oldOrphan]) await age(key, 2);

  const report = await collectGarbage({ blobStore, assetStore });
  t.is(report.scanned, 4);
  t.deepEqual(report.deleted.sort(), [oldOrphan, record.blobKey].sort());
  const left: string[] = [];
  for await (const blob of blobStore.list()) left.push(blob.key);
  t.deepEqual(left.sort(), [replacement.blobKey, youngOrphan].sort());
  t.deepEqual((await readdir(join(root, workspace))).sort(), ['as_1', 'as_3'], 'the folder of the collected orphan is gone');
});

test('disk: temp files of puts a crash cut short go once older than the grace period; a young one (a put in progress) stays', async (t) => {
  const { root, storage } = await diskStorage(t);
  // What a SIGKILL mid-put leaves: a file in the store's temp folder that no put will ever rename or remove.
  await mkdir(join(root, '.tmp'), { recursive: true });
  await writeFile(join(root, '.tmp', 'crashed'), 'half an upload');
  await writeFile(join(root, '.tmp', 'writing'), 'an upload in progress');
  const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
  await utimes(join(root, '.tmp', 'crashed'), twoHoursAgo, twoHoursAgo);

  const dry = await collectGarbage({ ...storage, dryRun: true });
  t.deepEqual(dry.abandoned, ['.tmp/crashed']);
  t.deepEqual((await readdir(join(root, '.tmp'))).sort(), ['crashed', 'writing'], 'a dry run removes nothing');
  const report = await collectGarbage(storage);
  t.deepEqual(report.abandoned, ['.tmp/crashed']);
  t.deepEqual(report.deleted, [], 'temp files are never reported as blobs');
  t.deepEqual(await readdir(join(root, '.tmp')), ['writing']);
});
