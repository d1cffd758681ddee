import test from 'ava';
import { Readable } from 'node:stream';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import type { BlobStore, ByteRange } from '../ports/blob-store.js';
import { bytesOf, failingStream } from '../testing/streams.js';
import { FileCache, type OpenedBytes } from './file-cache.js';
import { alice, chunked, pathOf, setup } from './test-support.js';

/** A memory store that counts the reads that reach it. */
function countingStore(): { store: BlobStore; reads: () => number } {
  const inner = new MemoryBlobStore();
  let reads = 0;
  const store: BlobStore = {
    put: (key, body) => inner.put(key, body),
    get: (key: string, range?: ByteRange) => {
      reads += 1;
      return inner.get(key, range);
    },
    stat: (key) => inner.stat(key),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    check: () => inner.check(),
  };
  return { store, reads: () => reads };
}

const put = (store: BlobStore, key: string, bytes: Buffer) => store.put(key, Readable.from([bytes]));

/** What was opened, from memory or read from the store's stream. */
const contentOf = async (opened: OpenedBytes | undefined): Promise<Buffer> => opened!.bytes ?? bytesOf(opened!.body);

test('a small file is read from the store once, then served from memory, whole or in ranges', async (t) => {
  const { store, reads } = countingStore();
  await put(store, 'ws/a', Buffer.from('0123456789'));
  const cache = new FileCache({ maxBytes: 1024, maxFileBytes: 100 });
  t.is((await contentOf(await cache.open(store, 'ws/a', 10, undefined))).toString(), '0123456789');
  t.is((await contentOf(await cache.open(store, 'ws/a', 10, { start: 2, end: 4 }))).toString(), '234');
  t.is((await contentOf(await cache.open(store, 'ws/a', 10, undefined))).toString(), '0123456789');
  t.is(reads(), 1);
  // From memory, the bytes come whole, and no stream is made.
  const opened = await cache.open(store, 'ws/a', 10, { start: 2, end: 4 });
  t.is(opened?.bytes?.toString(), '234');
  t.is(opened?.body, undefined);
});

test('files over maxFileBytes, bytes that do not match the record and a cache of size 0 always go to the store', async (t) => {
  const { store, reads } = countingStore();
  await put(store, 'ws/big', Buffer.alloc(200, 1));
  await put(store, 'ws/short', Buffer.from('abc'));
  const cache = new FileCache({ maxBytes: 1024, maxFileBytes: 100 });
  for (let i = 0; i < 2; i++) t.is((await contentOf(await cache.open(store, 'ws/big', 200, undefined))).length, 200);
  t.is(reads(), 2);
  t.is((await cache.open(store, 'ws/big', 200, undefined))!.bytes, undefined, 'a streamed file has no bytes in memory');
  t.is(reads(), 3);
  // The record says 5 bytes, the store has 3: served as read, never kept.
  for (let i = 0; i < 2; i++) t.is((await contentOf(await cache.open(store, 'ws/short', 5, undefined))).toString(), 'abc');
  t.is(reads(), 5);
  const off = new FileCache({ maxBytes: 0, maxFileBytes: 100 });
  for (let i = 0; i < 2; i++) await contentOf(await off.open(store, 'ws/short', 3, undefined));
  t.is(reads(), 7);
});

test('an unknown key is undefined and nothing is kept for it', async (t) => {
  const { store, reads } = countingStore();
  const cache = new FileCache({ maxBytes: 1024, maxFileBytes: 100 });
  t.is(await cache.open(store, 'ws/none', 3, undefined), undefined);
  await put(store, 'ws/none', Buffer.from('new'));
  t.is((await contentOf(await cache.open(store, 'ws/none', 3, undefined))).toString(), 'new');
  t.is(reads(), 2);
});

test('the least recently used files leave first once maxBytes is reached', async (t) => {
  const { store, reads } = countingStore();
  for (const key of ['ws/1', 'ws/2', 'ws/3']) await put(store, key, Buffer.alloc(40, 1));
  const cache = new FileCache({ maxBytes: 100, maxFileBytes: 100 });
  const read = async (key: string) => contentOf(await cache.open(store, key, 40, undefined));
  await read('ws/1');
  await read('ws/2');
  await read('ws/1');
  await read('ws/3'); // 120 bytes would be over: ws/2, the least recently used, goes
  t.is(reads(), 3);
  await read('ws/1');
  await read('ws/3');
  t.is(reads(), 3);
  await read('ws/2');
  t.is(reads(), 4);
});

test('a cached file still answers to its record: deleted is not_found at once, made private needs a signature', async (t) => {
  const { service } = setup({ fileCache: { maxBytes: 1024 * 1024, maxFileBytes: 1024 } });
  const asset = await service.upload(alice, { body: chunked(Buffer.from('hello, cache')) });
  const path = pathOf(asset.url);
  t.is((await bytesOf((await service.openFile(path)).body!)).toString(), 'hello, cache');
  await service.update(alice, asset.id, { visibility: 'private' });
  await t.throwsAsync(service.openFile(path), { code: 'permission_denied' });
  await service.delete(alice, asset.id);
  await t.throwsAsync(service.openFile(path), { code: 'not_found' });
});

test('a store failing mid-read is unavailable (retryable), and nothing is kept', async (t) => {
  const inner = new MemoryBlobStore();
  await put(inner, 'ws/a', Buffer.from('0123456789'));
  let failing = true;
  const store: BlobStore = {
    put: (key, body) => inner.put(key, body),
    get: async (key) => (failing ? failingStream({ bytesBeforeFailure: 4 }) : inner.get(key)),
    stat: (key) => inner.stat(key),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    check: () => inner.check(),
  };
  const cache = new FileCache({ maxBytes: 1024, maxFileBytes: 100 });
  await t.throwsAsync(cache.open(store, 'ws/a', 10, undefined), { code: 'unavailable' });
  failing = false;
  t.is((await contentOf(await cache.open(store, 'ws/a', 10, undefined))).toString(), '0123456789');
});
