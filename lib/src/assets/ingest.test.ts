import test from 'ava';
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SwitchyardError } from '../errors.js';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { bytesOf, failingStream, generatedBytes, generatedStream } from '../testing/streams.js';
import { ingest } from './ingest.js';
import { StoredBlobBody } from './stored-blob-body.js';
import { chunked, listBlobs } from './test-support.js';

const KEY = 'ws/as_x/bl_y';
const options = (maxBytes: number, headBytes = 1024) => ({ maxBytes, headBytes });
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

test('streams the body into the store and reports size, sha256 and head', async (t) => {
  const store = new MemoryBlobStore();
  const bytes = generatedBytes(300_000);
  const result = await ingest(
    Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)], { objectMode: false }),
    store,
    KEY,
    options(1e6),
  );
  t.is(result.size, bytes.length);
  t.is(result.sha256, sha256(bytes));
  t.deepEqual(Buffer.from(result.head), bytes.subarray(0, 1024));
  t.deepEqual(await bytesOf((await store.get(KEY))!), bytes);
});

test('a small body is its own head; an empty body is fine', async (t) => {
  const store = new MemoryBlobStore();
  const small = await ingest(chunked(Buffer.from('ab'), Buffer.from('c')), store, KEY, options(10));
  t.deepEqual(Buffer.from(small.head), Buffer.from('abc'));
  const empty = await ingest(chunked(), store, 'ws/empty', options(0));
  t.is(empty.size, 0);
  t.is(empty.sha256, sha256(new Uint8Array(0)));
  t.is((await store.stat('ws/empty'))?.size, 0);
});

test('exactly the maximum is accepted; one byte more is resource_exhausted and nothing is stored', async (t) => {
  const store = new MemoryBlobStore();
  t.is((await ingest(generatedStream(100_000, { chunkSize: 4096 }), store, KEY, options(100_000))).size, 100_000);
  const other = new MemoryBlobStore();
  const body = generatedStream(100_001, { chunkSize: 4096 });
  const error = await t.throwsAsync<SwitchyardError>(ingest(body, other, KEY, options(100_000)));
  t.is(error?.code, 'resource_exhausted');
  t.regex(error.message, /100000 bytes/);
  t.deepEqual(await listBlobs(other), []);
  t.true(body.destroyed, 'the body is no longer read');
});

test('a body that errors mid-way leaves nothing stored; a foreign error is invalid_argument', async (t) => {
  const store = new MemoryBlobStore();
  const body = failingStream({ bytesBeforeFailure: 200_000, error: new Error('socket exploded') });
  const error = await t.throwsAsync<SwitchyardError>(ingest(body, store, KEY, options(1e6)));
  t.is(error?.code, 'invalid_argument');
  t.is(error?.details[0]?.field, 'file');
  t.deepEqual(await listBlobs(store), []);
});

test('a body destroyed without an error (client went away) is canceled', async (t) => {
  const store = new MemoryBlobStore();
  const error = await t.throwsAsync<SwitchyardError>(ingest(failingStream({ bytesBeforeFailure: 70_000 }), store, KEY, options(1e6)));
  t.is(error?.code, 'canceled');
  t.deepEqual(await listBlobs(store), []);
});

test("the body's own SwitchyardError is kept", async (t) => {
  const store = new MemoryBlobStore();
  async function* body(): AsyncGenerator<Uint8Array> {
    yield Buffer.from('partial');
    throw new SwitchyardError('canceled', 'the client canceled');
  }
  const error = await t.throwsAsync<SwitchyardError>(ingest(body(), store, KEY, options(1e6)));
  t.is(error?.message, 'the client canceled');
  t.deepEqual(await listBlobs(store), []);
});

test('non-byte chunks and a missing body are invalid_argument', async (t) => {
  const store = new MemoryBlobStore();
  const strings = Readable.from(['text chunks'], { objectMode: true });
  t.is((await t.throwsAsync<SwitchyardError>(ingest(strings, store, KEY, options(100))))?.code, 'invalid_argument');
  t.is((await t.throwsAsync<SwitchyardError>(ingest(undefined as never, store, KEY, options(100))))?.code, 'invalid_argument');
  t.deepEqual(await listBlobs(store), []);
});

/** A store over memory whose put can be made to misbehave. */
class FaultyStore extends MemoryBlobStore {
  constructor(private readonly fault: 'fails' | 'stops-early') {
    super();
  }
  override async put(key: string, body: Readable): Promise<void> {
    if (this.fault === 'stops-early') return super.put(key, Readable.from([Buffer.from('half')], { objectMode: false }));
    for await (const _ of body) throw new SwitchyardError('unavailable', 'disk went away');
  }
}

test("the store's failure is reported as the store's error", async (t) => {
  const error = await t.throwsAsync<SwitchyardError>(ingest(generatedStream(10_000), new FaultyStore('fails'), KEY, options(1e6)));
  t.is(error?.code, 'unavailable');
});

test("a store that fails while writing (a full disk) reports its own error, not a broken body: its stream's teardown is not the body's failure", async (t) => {
  class FullDisk extends MemoryBlobStore {
    override async put(_key: string, body: Readable): Promise<void> {
      let writes = 0;
      const disk = new Writable({
        write: (_chunk, _encoding, done) =>
          done(++writes > 2 ? Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }) : undefined),
      });
      await pipeline(body, disk);
    }
  }
  for (const admit of [undefined, async () => undefined]) {
    const error = await t.throwsAsync<SwitchyardError>(
      ingest(generatedStream(1_000_000, { chunkSize: 4096 }), new FullDisk(), KEY, { maxBytes: 1e7, headBytes: 1024, admit }),
    );
    // A store's own unknown error is internal (adapters map theirs, the disk store to unavailable); never the client's 400.
    t.is(error?.code, 'internal', error?.message);
  }
});

test('a store that resolves without reading the whole body does not keep half a file', async (t) => {
  const store: BlobStore = new FaultyStore('stops-early');
  const error = await t.throwsAsync<SwitchyardError>(ingest(generatedStream(10_000), store, KEY, options(1e6)));
  t.is(error?.code, 'internal');
  t.deepEqual(await listBlobs(store), []);
});

test('a stored blob as the body is read, then linked under the key: the same result as streaming its bytes, and no put', async (t) => {
  const store = new MemoryBlobStore();
  const bytes = generatedBytes(300_000);
  await store.put('_uploads/ws/up_x/bl_a', Readable.from([bytes], { objectMode: false }));
  let puts = 0;
  const put = store.put.bind(store);
  store.put = async (key, body) => {
    puts++;
    return put(key, body);
  };
  const streamed = await ingest(Readable.from([bytes], { objectMode: false }), new MemoryBlobStore(), KEY, options(1e6));
  const stored = (sha256?: string) =>
    new StoredBlobBody({
      blobStore: store,
      key: '_uploads/ws/up_x/bl_a',
      size: bytes.length,
      sha256,
      bytes: Readable.from([bytes], { objectMode: false }),
    });
  for (const known of [undefined, sha256(bytes)]) {
    const key = `ws/as_x/bl_${known === undefined ? 'read' : 'known'}`;
    const result = await ingest(stored(known), store, key, options(1e6));
    t.deepEqual(result, streamed, known === undefined ? 'read whole' : 'sha256 known: head only');
    t.deepEqual(await bytesOf((await store.get(key))!), bytes);
  }
  t.is(puts, 0);
});

test('a stored blob holding bytes past the body (a failed write left them) is cut to the body before it is linked', async (t) => {
  const store = new MemoryBlobStore();
  const bytes = generatedBytes(50_000);
  for (const known of [undefined, sha256(bytes)]) {
    await store.put('_uploads/ws/up_x/bl_a', Readable.from([bytes, Buffer.from('stale tail')], { objectMode: false }));
    const key = `ws/as_x/bl_${known === undefined ? 'read' : 'known'}`;
    const body = new StoredBlobBody({
      blobStore: store,
      key: '_uploads/ws/up_x/bl_a',
      size: bytes.length,
      sha256: known,
      bytes: Readable.from([bytes], { objectMode: false }),
    });
    const result = await ingest(body, store, key, options(1e6));
    t.is(result.size, bytes.length);
    t.deepEqual(await bytesOf((await store.get(key))!), bytes, "the asset's file is the body, not the tail");
  }
});

test('a stored blob with a known sha256 is judged like a streamed body: too large or refused by admit, nothing is linked', async (t) => {
  const store = new MemoryBlobStore();
  const bytes = generatedBytes(5_000);
  await store.put('_uploads/ws/up_x/bl_a', Readable.from([bytes], { objectMode: false }));
  const stored = () =>
    new StoredBlobBody({
      blobStore: store,
      key: '_uploads/ws/up_x/bl_a',
      size: bytes.length,
      sha256: sha256(bytes),
      bytes: Readable.from([bytes], { objectMode: false }),
    });
  const tooLarge = await t.throwsAsync<SwitchyardError>(ingest(stored(), store, KEY, options(4_999)));
  t.is(tooLarge?.code, 'resource_exhausted');
  const refusal = new SwitchyardError('invalid_argument', 'not allowed');
  const seen: Array<number | undefined> = [];
  const admit = async (head: Uint8Array, totalSize: number | undefined) => {
    seen.push(head.length, totalSize);
    throw refusal;
  };
  t.is(await t.throwsAsync(ingest(stored(), store, KEY, { maxBytes: 1e6, headBytes: 1024, admit })), refusal);
  t.deepEqual(seen, [1024, undefined], 'the head, the size unknown to admit as for a streamed body longer than its head');
  t.is(await store.stat(KEY), undefined);
});
