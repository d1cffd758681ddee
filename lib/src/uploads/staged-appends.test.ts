import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { alice, chunked, listBlobs, readFixture } from '../assets/test-support.js';
import { SwitchyardError } from '../errors.js';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { CHECKSUM_MISMATCH_FIELD } from './store-part.js';
import { cutAfter, rejection, settlement, sha256, uploadsSetup, withoutWriteAtOrLink } from './test-support.js';

// Appends through `BlobStore.writeAt` into one blob, finished with `BlobStore.link` (the memory store has both).

const partBlobs = async (store: BlobStore) => (await listBlobs(store)).filter((blob) => blob.key.startsWith('_uploads/'));

const READ_CHUNK = 64 * 1024;

/** Counts the store's puts and the bytes taken from it (read in 64 KiB chunks, as from a disk). */
function counting(store: MemoryBlobStore) {
  const seen = { puts: 0, bytesRead: 0 };
  const put = store.put.bind(store);
  const get = store.get.bind(store);
  store.put = async (key, body) => {
    seen.puts++;
    return put(key, body);
  };
  store.get = async (key, range) => {
    const stream = await get(key, range);
    if (stream === undefined) return undefined;
    return Readable.from(
      (async function* () {
        for await (const bytes of stream as AsyncIterable<Buffer>) {
          for (let at = 0; at < bytes.length; at += READ_CHUNK) {
            const chunk = bytes.subarray(at, at + READ_CHUNK);
            seen.bytesRead += chunk.length;
            yield chunk;
          }
        }
      })(),
      { objectMode: false },
    );
  };
  return seen;
}

test("the appends of an upload grow one blob, which becomes the asset's file without a byte written or hashed again", async (t) => {
  const blobStore = new MemoryBlobStore();
  const seen = counting(blobStore);
  const { uploads, service } = uploadsSetup({ blobStore });
  const file = randomBytes(900_000);
  const { id } = await uploads.create(alice, { length: file.length, intent: { label: 'one blob' } });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 300_000)) });
  await uploads.append(alice, id, { offset: 300_000, body: chunked(file.subarray(300_000, 600_000)) });
  const parts = await partBlobs(blobStore);
  t.is(parts.length, 1, 'one blob for all the appends');
  t.is(parts[0]!.size, 600_000);
  const done = await uploads.append(alice, id, { offset: 600_000, body: chunked(file.subarray(600_000)) });
  const asset = await service.get(alice, done.assetId!);
  t.is(asset.sha256, sha256(file));
  t.is(asset.size, file.length);
  t.is(asset.label, 'one blob');
  t.is(seen.puts, 0, 'no put: the blob was linked');
  // The head, and what the stream read ahead of it.
  t.true(
    seen.bytesRead <= 256 * 1024 + 2 * READ_CHUNK,
    `only the head was read to sniff it (${seen.bytesRead} bytes); the sha256 was taken as the bytes came`,
  );
  t.deepEqual(await partBlobs(blobStore), [], "the upload's own name for the blob is gone");
  const [stored] = await listBlobs(blobStore);
  t.is(stored!.size, file.length);
});

test('a retried append after a failed one overwrites the stale bytes it left past the offset', async (t) => {
  const { uploads, uploadStore, service, blobStore } = uploadsSetup();
  const file = randomBytes(30_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 10_000)) });
  // The bytes are written, but the commit fails: the upload stays at 10,000 with stale bytes after them.
  const commit = uploadStore.commit.bind(uploadStore);
  uploadStore.commit = async () => {
    uploadStore.commit = commit;
    throw new SwitchyardError('unavailable', 'database unavailable');
  };
  t.is((await rejection(uploads.append(alice, id, { offset: 10_000, body: chunked(randomBytes(15_000)) }))).code, 'unavailable');
  t.is((await uploads.get(alice, id)).offset, 10_000);
  t.is((await partBlobs(blobStore))[0]!.size, 25_000, 'the stale bytes are in the blob, past the committed offset');
  // A too-large run leaves what it wrote before the limit, too.
  t.is(
    (await rejection(uploads.append(alice, id, { offset: 10_000, body: chunked(file.subarray(10_000, 20_000), randomBytes(20_000)) })))
      .code,
    'resource_exhausted',
  );
  t.is((await uploads.get(alice, id)).offset, 10_000);
  const done = await uploads.append(alice, id, { offset: 10_000, body: chunked(file.subarray(10_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('a cut append keeps what arrived in the blob; the resumed one goes on after it', async (t) => {
  const { uploads, service, blobStore } = uploadsSetup();
  const file = randomBytes(50_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 5_000)) });
  t.is((await rejection(uploads.append(alice, id, { offset: 5_000, body: cutAfter(file.subarray(5_000, 20_000)) }))).code, 'canceled');
  const { offset } = await uploads.get(alice, id);
  t.is(offset, 20_000);
  t.is((await partBlobs(blobStore)).length, 1);
  const done = await uploads.append(alice, id, { offset, body: chunked(file.subarray(offset)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('a checksum mismatch keeps none of the run: the blob is cut back to the committed offset', async (t) => {
  const { uploads, service, blobStore } = uploadsSetup();
  const file = randomBytes(10_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 4_000)) });
  const wrong = await rejection(
    uploads.append(alice, id, {
      offset: 4_000,
      body: chunked(file.subarray(4_000)),
      checksum: { algorithm: 'sha1', digest: Buffer.alloc(20) },
    }),
  );
  t.true(wrong.details.some((detail) => detail.field === CHECKSUM_MISMATCH_FIELD));
  t.is((await uploads.get(alice, id)).offset, 4_000);
  t.is((await partBlobs(blobStore))[0]!.size, 4_000, 'cut back');
  const digest = createHash('sha256').update(file.subarray(4_000)).digest();
  const done = await uploads.append(alice, id, {
    offset: 4_000,
    body: chunked(file.subarray(4_000)),
    checksum: { algorithm: 'sha256', digest },
  });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('appends from another instance: its finish reads the blob to hash it, and links it all the same', async (t) => {
  const blobStore = new MemoryBlobStore();
  const seen = counting(blobStore);
  const { uploads, another, service } = uploadsSetup({ blobStore });
  const file = randomBytes(400_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 100_000)) });
  const done = await another().append(alice, id, { offset: 100_000, body: chunked(file.subarray(100_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
  t.is(seen.puts, 0);
  t.is(seen.bytesRead, file.length, 'read once, whole');
});

test('a lease taken over from an append that never gave it back starts a new blob; the finish joins the two', async (t) => {
  const { uploads, uploadStore, service, blobStore, fake, time } = uploadsSetup();
  const file = randomBytes(60_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 20_000)) });
  // An append that took the lease and hung (or lost the database), perhaps still writing into the upload's blob.
  t.true(await uploadStore.acquireAppend('ws-alice', id, 'bl_hung', time.now(), time.now()));
  // 20,000 ms without a renewal: the lease still holds; the append waits, and takes it over at its next try, 50 ms on.
  fake.tick(20_000);
  const appending = uploads.append(alice, id, { offset: 20_000, body: chunked(file.subarray(20_000, 40_000)) });
  const state = settlement(appending);
  await fake.tickAsync(49);
  t.false(state.settled, 'waiting at 20,049 ms');
  await fake.tickAsync(1);
  await appending;
  t.deepEqual((await partBlobs(blobStore)).map((blob) => blob.size).sort(), [20_000, 20_000], 'the new bytes went to a blob of their own');
  const done = await uploads.append(alice, id, { offset: 40_000, body: chunked(file.subarray(40_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
  t.deepEqual(await partBlobs(blobStore), []);
});

test('after a takeover that stored nothing, later appends still keep away from the old blob its hung holder may write into', async (t) => {
  const { uploads, uploadStore, service, blobStore, fake, time } = uploadsSetup();
  const file = randomBytes(60_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 20_000)) });
  const [old] = await partBlobs(blobStore);
  t.true(await uploadStore.acquireAppend('ws-alice', id, 'bl_hung', time.now(), time.now()));
  // Stale at 20,001 ms: the next append takes it over at once.
  fake.tick(20_001);
  // The append that takes the lease over stores nothing (its client sent no byte), and gives the lease back.
  await uploads.append(alice, id, { offset: 20_000, body: chunked(Buffer.alloc(0)) });
  // The next append must not go on in the old blob: the hung holder may still be writing there.
  await uploads.append(alice, id, { offset: 20_000, body: chunked(file.subarray(20_000, 40_000)) });
  const blobs = await partBlobs(blobStore);
  t.is(blobs.find((blob) => blob.key === old!.key)?.size, 20_000, 'the old blob holds only what was committed into it');
  t.deepEqual(blobs.map((blob) => blob.size).sort(), [20_000, 20_000]);
  const done = await uploads.append(alice, id, { offset: 40_000, body: chunked(file.subarray(40_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
  t.deepEqual(await partBlobs(blobStore), []);
});

test('an append that waited for a lease given back goes on in the same blob', async (t) => {
  const { uploads, uploadStore, service, blobStore, fake, time } = uploadsSetup();
  const file = randomBytes(30_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 10_000)) });
  // Another append holds the lease (say, one cut short, committing nothing) and gives it back while this one waits.
  t.true(await uploadStore.acquireAppend('ws-alice', id, 'bl_other', time.now(), time.now()));
  fake.setTimeout(() => void uploadStore.releaseAppend('ws-alice', id, 'bl_other'), 170);
  const appending = uploads.append(alice, id, { offset: 10_000, body: chunked(file.subarray(10_000, 20_000)) });
  const state = settlement(appending);
  // Given back at 170 ms; the append tries every 50 ms, so it takes the lease at 200.
  await fake.tickAsync(199);
  t.false(state.settled, 'still waiting at 199 ms');
  await fake.tickAsync(1);
  await appending;
  t.deepEqual(
    (await partBlobs(blobStore)).map((blob) => blob.size),
    [20_000],
    'one blob still',
  );
  const done = await uploads.append(alice, id, { offset: 20_000, body: chunked(file.subarray(20_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('an append waits 3,000 ms for a lease another append holds, then answers busy', async (t) => {
  const { uploads, uploadStore, fake, time } = uploadsSetup();
  const { id } = await uploads.create(alice, { length: 100 });
  t.true(await uploadStore.acquireAppend('ws-alice', id, 'bl_other', time.now(), time.now()));
  const appending = uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(100)) });
  const state = settlement(appending);
  await fake.tickAsync(2_999);
  t.false(state.settled, 'still waiting at 2,999 ms');
  await fake.tickAsync(1);
  t.true(state.settled, 'answered at 3,000 ms');
  const busy = await rejection(appending);
  t.is(busy.code, 'unavailable');
  t.is(busy.details[0]?.field, 'upload');
  t.is((await uploadStore.get('ws-alice', id))?.offset, 0, 'nothing was stored');
});

test('a replace through an upload links the blob under the asset, keeping its id', async (t) => {
  const blobStore = new MemoryBlobStore();
  const { uploads, service } = uploadsSetup({ blobStore });
  const original = await service.upload(alice, { body: chunked(await readFixture('image.png')) });
  const jpeg = await readFixture('photo.jpg');
  const { id } = await uploads.create(alice, { length: jpeg.length, intent: { replace: original.id } });
  const half = Math.floor(jpeg.length / 2);
  const seen = counting(blobStore);
  await uploads.append(alice, id, { offset: 0, body: chunked(jpeg.subarray(0, half)) });
  const done = await uploads.append(alice, id, { offset: half, body: chunked(jpeg.subarray(half)) });
  t.is(seen.puts, 0, 'no byte of the file written again: the blob was linked');
  t.is(done.assetId, original.id);
  const replaced = await service.get(alice, original.id);
  t.is(replaced.type, 'image/jpeg');
  t.is(replaced.sha256, sha256(jpeg));
});

test('without writeAt and link (as on S3) each append is a blob of its own, copied into the asset at the finish', async (t) => {
  const memory = new MemoryBlobStore();
  const seen = counting(memory);
  const blobStore = withoutWriteAtOrLink(memory);
  const { uploads, service } = uploadsSetup({ blobStore });
  const file = randomBytes(300_000);
  const { id } = await uploads.create(alice, { length: file.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(file.subarray(0, 100_000)) });
  t.is((await rejection(uploads.append(alice, id, { offset: 100_000, body: cutAfter(file.subarray(100_000, 150_000)) }))).code, 'canceled');
  await uploads.append(alice, id, { offset: 150_000, body: chunked(file.subarray(150_000, 200_000)) });
  t.is((await partBlobs(blobStore)).length, 3);
  const done = await uploads.append(alice, id, { offset: 200_000, body: chunked(file.subarray(200_000)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
  t.is(seen.puts, 5, 'four parts and the asset');
  t.deepEqual(await partBlobs(blobStore), []);
});
