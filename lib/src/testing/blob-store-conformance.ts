import { Readable } from 'node:stream';
import { SwitchyardError } from '../errors.js';
import type { BlobInfo, BlobStore } from '../ports/blob-store.js';
import { assertRejectsWithCode, defineCase, describe, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';
import type { Check } from './assertions.js';
import { bytesOf, failingStream, generatedBytes, generatedStream, sha256Of } from './streams.js';

const MiB = 1024 * 1024;
const LARGE_SIZE = 20 * MiB + 12345;

/** Keys every store must refuse with `invalid_argument` before touching storage. */
export const UNSAFE_BLOB_KEYS: readonly string[] = Object.freeze(['', '../x', 'a/../b', './x', 'a/./b', '.', '..', '/abs', 'a//b', 'a/', 'a\\b', '..\\x', 'a\0b', 'C:/x', `${'x'.repeat(600)}`]);

function bytesStream(bytes: Uint8Array): Readable {
  // Not `Readable.from([buffer])` alone: that is an object-mode stream.
  return Readable.from([bytes], { objectMode: false });
}

async function collectList(store: BlobStore, keys: readonly string[]): Promise<Map<string, BlobInfo>> {
  const found = new Map<string, BlobInfo>();
  for await (const info of store.list()) if (keys.includes(info.key)) found.set(info.key, info);
  return found;
}

/** Registers the BlobStore contract tests (see `ports/blob-store.ts`). */
export function blobStoreConformance(test: RegisterTest, options: ConformanceOptions<BlobStore>): void {
  const define = (title: string, body: (t: Check, store: BlobStore) => Promise<void>) =>
    defineCase(test, options, `BlobStore ${title}`, body);
  const freshKey = (name = 'blob.bin') => `${uniqueName()}/${name}`;

  define('put then get, stat and check round-trip small and empty blobs', async (t, store) => {
    await t.notThrowsAsync(store.check(), 'check resolves');
    const key = freshKey('small.txt');
    const bytes = Buffer.from('hello, blob store\n');
    await store.put(key, bytesStream(bytes));
    const body = await store.get(key);
    t.truthy(body);
    t.deepEqual(await bytesOf(body!), bytes);
    const info = await store.stat(key);
    t.is(info?.key, key);
    t.is(info?.size, bytes.length);
    t.true(info?.modifiedAt instanceof Date && !Number.isNaN(info.modifiedAt.getTime()), 'modifiedAt is a valid Date');
    const empty = freshKey('empty');
    await store.put(empty, bytesStream(Buffer.alloc(0)));
    t.is((await store.stat(empty))?.size, 0, 'an empty blob exists with size 0');
    t.deepEqual(await bytesOf((await store.get(empty))!), Buffer.alloc(0));
  });

  define('unknown keys: get and stat return undefined', async (t, store) => {
    t.is(await store.get(freshKey()), undefined);
    t.is(await store.stat(freshKey()), undefined);
    t.is(await store.get(freshKey(), { start: 0, end: 10 }), undefined, 'with a range');
  });

  define('ranges are inclusive and clamped past the end', async (t, store) => {
    const key = freshKey();
    const bytes = generatedBytes(100);
    await store.put(key, bytesStream(bytes));
    const read = async (start: number, end: number) => bytesOf((await store.get(key, { start, end }))!);
    t.deepEqual(await read(0, 0), bytes.subarray(0, 1), 'first byte');
    t.deepEqual(await read(10, 19), bytes.subarray(10, 20), 'middle');
    t.deepEqual(await read(99, 99), bytes.subarray(99), 'last byte');
    t.deepEqual(await read(0, 99), bytes, 'whole');
    t.deepEqual(await read(90, 1000), bytes.subarray(90), 'end past the size is clamped');
  });

  for (const [title, failAfter] of [['at once', 0], ['after 64 KiB', 64 * 1024], ['after 6 MiB (past a multipart threshold)', 6 * MiB]] as const) {
    define(`put is all-or-nothing: a body failing ${title} rejects with its error and leaves nothing`, async (t, store) => {
      const key = freshKey();
      const boom = new SwitchyardError('resource_exhausted', 'too large');
      const error = await t.throwsAsync(store.put(key, failingStream({ bytesBeforeFailure: failAfter, error: boom })));
      t.is(error, boom, `put must reject with the body's own error, got ${describe(error)}`);
      t.is(await store.get(key), undefined, 'nothing readable');
      t.is(await store.stat(key), undefined, 'nothing to stat');
      t.false((await collectList(store, [key])).has(key), 'nothing listed');
    });
  }

  define('put is all-or-nothing: a body destroyed without an error rejects and leaves nothing', async (t, store) => {
    const key = freshKey();
    await t.throwsAsync(store.put(key, failingStream({ bytesBeforeFailure: 128 * 1024 })));
    t.is(await store.get(key), undefined);
    t.is(await store.stat(key), undefined);
    t.false((await collectList(store, [key])).has(key));
  });

  define('delete removes a blob and is idempotent', async (t, store) => {
    const key = freshKey();
    await store.put(key, bytesStream(Buffer.from('x')));
    await store.delete(key);
    t.is(await store.get(key), undefined);
    t.is(await store.stat(key), undefined);
    await t.notThrowsAsync(store.delete(key), 'deleting again');
    await t.notThrowsAsync(store.delete(freshKey()), 'deleting a key never stored');
  });

  define('list yields every stored blob with its size, and no deleted one', async (t, store) => {
    const prefix = uniqueName();
    const keys = [`${prefix}/a.bin`, `${prefix}/b.bin`, `${prefix}/nested/c.bin`];
    for (const [i, key] of keys.entries()) await store.put(key, bytesStream(generatedBytes(10 + i)));
    let listed = await collectList(store, keys);
    t.deepEqual([...listed.keys()].sort(), [...keys].sort());
    for (const [i, key] of keys.entries()) t.is(listed.get(key)?.size, 10 + i, `size of ${key}`);
    t.true([...listed.values()].every((info) => info.modifiedAt instanceof Date), 'modifiedAt are Dates');
    await store.delete(keys[0]!);
    listed = await collectList(store, keys);
    t.false(listed.has(keys[0]!), 'a deleted blob is not listed');
  });

  define('unsafe keys are invalid_argument for every operation', async (t, store) => {
    for (const key of UNSAFE_BLOB_KEYS) {
      const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 20)}…` : key);
      await assertRejectsWithCode(t, store.put(key, bytesStream(Buffer.from('x'))), 'invalid_argument', `put ${shown}`);
      await assertRejectsWithCode(t, store.get(key), 'invalid_argument', `get ${shown}`);
      await assertRejectsWithCode(t, store.stat(key), 'invalid_argument', `stat ${shown}`);
      await assertRejectsWithCode(t, store.delete(key), 'invalid_argument', `delete ${shown}`);
    }
  });

  define('a large streamed blob (20 MiB) round-trips with the same sha256, and ranges inside it', async (t, store) => {
    const key = freshKey('large.bin');
    const expectedHash = await sha256Of(generatedStream(LARGE_SIZE));
    await store.put(key, generatedStream(LARGE_SIZE));
    t.is((await store.stat(key))?.size, LARGE_SIZE);
    t.is(await sha256Of((await store.get(key))!), expectedHash);
    const start = 10 * MiB - 7;
    const end = start + MiB;
    t.deepEqual(await bytesOf((await store.get(key, { start, end }))!), generatedBytes(end - start + 1, { offset: start }), 'a range deep inside');
    const tail = await bytesOf((await store.get(key, { start: LARGE_SIZE - 10, end: LARGE_SIZE + MiB }))!);
    t.deepEqual(tail, generatedBytes(10, { offset: LARGE_SIZE - 10 }), 'the clamped tail');
    // Read options are hints: they never change which bytes come back.
    for (const chunkBytes of [MiB, 64 * MiB, 0, Number.NaN]) {
      t.is(await sha256Of((await store.get(key, undefined, { chunkBytes }))!), expectedHash, `whole, chunkBytes ${chunkBytes}`);
    }
    t.deepEqual(await bytesOf((await store.get(key, { start, end }, { chunkBytes: MiB }))!), generatedBytes(end - start + 1, { offset: start }), 'a range with chunkBytes');
    await store.delete(key);
  });

  if (options.createUnavailable) {
    defineCase(test, options, 'BlobStore unreachable backend: every operation is unavailable', async (t, store) => {
      const key = freshKey();
      await assertRejectsWithCode(t, store.check(), 'unavailable', 'check');
      await assertRejectsWithCode(t, store.put(key, bytesStream(Buffer.from('x'))), 'unavailable', 'put');
      await assertRejectsWithCode(t, store.get(key), 'unavailable', 'get');
      await assertRejectsWithCode(t, store.stat(key), 'unavailable', 'stat');
      await assertRejectsWithCode(t, store.delete(key), 'unavailable', 'delete');
      const listing = (async () => { for await (const _ of store.list()) break; })();
      await assertRejectsWithCode(t, listing, 'unavailable', 'list');
    }, options.createUnavailable);
  }
}
