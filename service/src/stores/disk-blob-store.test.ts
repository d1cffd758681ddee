import test from 'ava';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isSwitchyardError } from '@switchyard/core';
import { blobStoreConformance, bytesOf, failingStream, generatedStream } from '@switchyard/core/testing';
import { hasFreshChunks } from '@switchyard/runtime';
import { DiskBlobStore } from './disk-blob-store.js';

const roots: string[] = [];
async function freshRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'switchyard-disk-blobs-'));
  roots.push(root);
  return root;
}
// Before any test is declared: ava wants declarations synchronous after the last top-level await.
const shared = await freshRoot();
test.after.always(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

blobStoreConformance(test, {
  name: 'disk',
  create: async () => ({ store: new DiskBlobStore(join(shared, 'files')) }),
  // A root that is a regular file: nothing can be read or written below it.
  createUnavailable: async () => {
    const file = join(await freshRoot(), 'not-a-folder');
    await writeFile(file, 'x');
    return { store: new DiskBlobStore(file) };
  },
});

const bytes = (text: string) => Readable.from([Buffer.from(text)], { objectMode: false });

test('disk: each blob is one file at its key path, and puts leave no temp files behind', async (t) => {
  const root = await freshRoot();
  const store = new DiskBlobStore(root);
  await store.put('ws/as_1/bl_1.txt', bytes('one'));
  await store.put('ws/as_1/bl_1.txt', bytes('two, replacing'));
  await store.put('ws/large.bin', generatedStream(3 * 1024 * 1024));
  await t.throwsAsync(store.put('ws/failed.bin', failingStream({ bytesBeforeFailure: 200_000 })));
  t.is((await stat(join(root, 'ws', 'as_1', 'bl_1.txt'))).size, 'two, replacing'.length);
  t.deepEqual(await readdir(join(root, '.tmp')), [], 'no temp file survives, failed or not');
  t.deepEqual((await readdir(join(root, 'ws'))).sort(), ['as_1', 'large.bin']);
});

test('disk: a body that fails at once, while the temp file is still being opened, leaves no temp file behind', async (t) => {
  const root = await freshRoot();
  const store = new DiskBlobStore(root);
  for (let round = 0; round < 20; round += 1) {
    const failing = new Readable({ read() {} });
    process.nextTick(() => failing.destroy(new Error('refused at once')));
    await t.throwsAsync(store.put(`ws/as_${round}/bl.bin`, failing), { message: 'refused at once' });
    t.deepEqual(await readdir(join(root, '.tmp')).catch(() => []), [], `round ${round}: no temp file the moment put rejects`);
  }
});

test('disk: a link is as young as the link, not as the bytes: gc and the abandoned-write sweep judge a key by its age', async (t) => {
  const root = await freshRoot();
  const store = new DiskBlobStore(root);
  await store.put('_uploads/ws/up_1/bl_1', bytes('the bytes of a long upload'));
  // The upload's last write was an hour ago.
  const anHourAgo = new Date(Date.now() - 3_600_000);
  await utimes(join(root, '_uploads', 'ws', 'up_1', 'bl_1'), anHourAgo, anHourAgo);
  const before = Date.now();
  await store.link('_uploads/ws/up_1/bl_1', 'ws/as_1/bl_2.txt');
  const linked = await store.stat('ws/as_1/bl_2.txt');
  t.true(linked!.modifiedAt.getTime() >= before - 1_000, `modified at ${linked!.modifiedAt.toISOString()}`);
  t.is(await bytesOf((await store.get('ws/as_1/bl_2.txt'))!).then(String), 'the bytes of a long upload');
});

test('disk: delete prunes folders it empties, up to but not including the root', async (t) => {
  const root = await freshRoot();
  const store = new DiskBlobStore(root);
  await store.put('ws/as_1/bl_1.txt', bytes('a'));
  await store.put('ws/as_2/bl_2.txt', bytes('b'));
  await store.delete('ws/as_1/bl_1.txt');
  t.deepEqual(await readdir(join(root, 'ws')), ['as_2'], 'the empty asset folder is gone, its sibling stays');
  await store.delete('ws/as_2/bl_2.txt');
  t.deepEqual(await readdir(root), ['.tmp'], 'workspace folder pruned too; the root stays');
  await store.put('ws/as_2/bl_3.txt', bytes('c'));
  t.deepEqual(await bytesOf((await store.get('ws/as_2/bl_3.txt'))!), Buffer.from('c'), 'pruned folders come back on put');
});

test('disk: list skips the temp folder, dot files and names no key could have', async (t) => {
  const root = await freshRoot();
  const store = new DiskBlobStore(root);
  await store.put('ws/a.bin', bytes('a'));
  await mkdir(join(root, '.tmp'), { recursive: true });
  await writeFile(join(root, '.tmp', 'partial'), 'partial upload');
  await writeFile(join(root, 'ws', '.hidden'), 'x');
  await writeFile(join(root, 'ws', 'bad name'), 'x');
  const keys: string[] = [];
  for await (const info of store.list()) keys.push(info.key);
  t.deepEqual(keys, ['ws/a.bin']);
});

test('disk: a folder is not a blob, and a key under a blob is simply absent', async (t) => {
  const store = new DiskBlobStore(await freshRoot());
  await store.put('ws/as_1/bl_1.txt', bytes('a'));
  t.is(await store.get('ws/as_1'), undefined);
  t.is(await store.stat('ws/as_1'), undefined);
  await t.notThrowsAsync(store.delete('ws/as_1'));
  t.is(await store.get('ws/as_1/bl_1.txt/x'), undefined);
  t.truthy(await store.stat('ws/as_1/bl_1.txt'), 'deleting a folder key removed nothing');
});

test('disk: a range starting past the end reads nothing; a malformed range is invalid_argument', async (t) => {
  const store = new DiskBlobStore(await freshRoot());
  await store.put('ws/ten', bytes('0123456789'));
  t.deepEqual(await bytesOf((await store.get('ws/ten', { start: 10, end: 20 }))!), Buffer.alloc(0));
  for (const range of [
    { start: -1, end: 3 },
    { start: 5, end: 4 },
    { start: 0.5, end: 3 },
  ]) {
    const error = await t.throwsAsync(store.get('ws/ten', range));
    t.true(isSwitchyardError(error) && error.code === 'invalid_argument', JSON.stringify(range));
  }
});

test('disk: a chunkBytes hint raises the read size from 64 KiB, up to 4 MiB; smaller or odd values are ignored', async (t) => {
  const store = new DiskBlobStore(await freshRoot());
  await store.put('ws/large.bin', generatedStream(9 * 1024 * 1024));
  const largestChunk = async (chunkBytes?: number) => {
    let largest = 0;
    for await (const chunk of (await store.get(
      'ws/large.bin',
      undefined,
      chunkBytes === undefined ? undefined : { chunkBytes },
    ))! as AsyncIterable<Buffer>)
      largest = Math.max(largest, chunk.length);
    return largest;
  };
  t.is(await largestChunk(), 64 * 1024);
  t.is(await largestChunk(1024 * 1024), 1024 * 1024);
  t.is(await largestChunk(64 * 1024 * 1024), 4 * 1024 * 1024);
  t.is(await largestChunk(1024), 64 * 1024);
  t.is(await largestChunk(Number.NaN), 64 * 1024);
});

test('disk: check creates a missing root and passes; a root that is a file is unavailable', async (t) => {
  const root = join(await freshRoot(), 'later', 'files');
  await new DiskBlobStore(root).check();
  t.true((await stat(root)).isDirectory());
  const file = join(await freshRoot(), 'file');
  await writeFile(file, 'x');
  const error = await t.throwsAsync(new DiskBlobStore(file).check());
  t.true(isSwitchyardError(error) && error.code === 'unavailable');
});

test('disk: a read streams fresh buffers (marked so, for the in-process channel to pass on uncopied), each its own memory', async (t) => {
  const store = new DiskBlobStore(await freshRoot());
  await store.put('ws/three.bin', generatedStream(3 * 64 * 1024 + 5));
  const body = (await store.get('ws/three.bin'))!;
  t.true(hasFreshChunks(body));
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  t.true(chunks.length >= 4);
  t.is(new Set(chunks.map((chunk) => chunk.buffer)).size, chunks.length, 'no two chunks share memory');
  const range = (await store.get('ws/three.bin', { start: 10, end: 9 + 64 * 1024 }))!;
  t.true(hasFreshChunks(range), 'ranges too');
  range.destroy();
});
