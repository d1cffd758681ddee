import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { HashPool, INLINE_BYTES, type RunningHash } from './off-thread-hash.js';

const MIB = 1024 * 1024;

/** A seeded generator, so a failure names sizes that can be replayed. */
function sizes(seed: number, count: number, max: number): number[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const pick = next();
    // Empty and 1-byte chunks among the rest, and some that cross slab boundaries.
    out.push(pick < 0.1 ? 0 : pick < 0.2 ? 1 : pick < 0.3 ? MIB + Math.floor(next() * 3) : Math.floor(next() * max));
  }
  return out;
}

async function feed(hash: RunningHash, chunks: readonly Uint8Array[]): Promise<void> {
  for (const chunk of chunks) await hash.update(chunk);
}

const nodeSha256 = (chunks: readonly Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
};

test('the digest equals node:crypto’s for random chunk sizes, empty and 1-byte chunks included', async (t) => {
  const pool = new HashPool(2);
  t.teardown(() => pool.close());
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const chunks = sizes(seed, 40, 300_000).map((size) => randomBytes(size));
    const hash = pool.create();
    await feed(hash, chunks);
    t.is((await hash.digest()).toString('hex'), nodeSha256(chunks), `seed ${seed}`);
  }
  t.is(await pool.held(), 0);
});

test('a chunk is copied when taken: the caller may overwrite its buffer at once', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const buffer = Buffer.alloc(3 * MIB + 5, 1);
  const hash = pool.create();
  await hash.update(buffer);
  const expected = nodeSha256([Buffer.alloc(3 * MIB + 5, 1), Buffer.alloc(7, 2)]);
  buffer.fill(9);
  await hash.update(Buffer.alloc(7, 2));
  t.is((await hash.digest()).toString('hex'), expected);
});

test('small, empty and slab-sized inputs, on the calling thread and in the worker alike', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  for (const size of [0, 1, INLINE_BYTES, INLINE_BYTES + 1, MIB - 1, MIB, MIB + 1, 2 * MIB]) {
    const bytes = randomBytes(size);
    const hash = pool.create();
    await hash.update(bytes);
    t.is((await hash.digest()).toString('hex'), nodeSha256([bytes]), `${size} bytes`);
  }
  const empty = pool.create();
  t.is((await empty.digest()).toString('hex'), nodeSha256([]));
});

test('a copy goes on from the bytes so far, independent of the hash it was copied from', async (t) => {
  const pool = new HashPool(2);
  t.teardown(() => pool.close());
  for (const first of [10, 2 * MIB + 3]) {
    const a = randomBytes(first);
    const b = randomBytes(MIB + 17);
    const c = randomBytes(5);
    const hash = pool.create();
    await hash.update(a);
    const twin = hash.copy();
    await twin.update(b);
    await hash.update(c);
    t.is((await twin.digest()).toString('hex'), nodeSha256([a, b]), `twin after ${first} bytes`);
    t.is((await hash.digest()).toString('hex'), nodeSha256([a, c]), `original after ${first} bytes`);
  }
  t.is(await pool.held(), 0);
});

test('other algorithms (an Upload-Checksum) hash the same way', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const bytes = randomBytes(3 * MIB);
  const hash = pool.create('sha1');
  await hash.update(bytes);
  t.is((await hash.digest()).toString('hex'), createHash('sha1').update(bytes).digest('hex'));
});

test('disposing a hash (an aborted upload) releases it in the worker, even with bytes in flight and a digest pending', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const aborted = pool.create();
  await aborted.update(randomBytes(3 * MIB));
  void aborted.update(randomBytes(MIB));
  aborted.dispose();
  aborted.dispose();
  const pending = pool.create();
  await pending.update(randomBytes(2 * MIB));
  const digest = pending.digest();
  pending.dispose();
  const refused = await t.throwsAsync(digest);
  t.is((refused as { code?: string }).code, 'canceled');
  t.is(await pool.held(), 0);
  // The worker goes on serving the next hash.
  const next = pool.create();
  const bytes = randomBytes(2 * MIB);
  await next.update(bytes);
  t.is((await next.digest()).toString('hex'), nodeSha256([bytes]));
});

test('a failure in the worker reaches the digest, and the hash is not usable after', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const hash = pool.create('no-such-algorithm');
  await hash.update(randomBytes(2 * MIB));
  const error = await t.throwsAsync(hash.digest());
  t.is((error as { code?: string }).code, 'internal');
  t.regex(error.message, /hashing failed/);
  t.throws(() => hash.update(new Uint8Array(1)));
  t.is(await pool.held(), 0);
});

test('a worker that dies fails the hashes it held; the pool starts another for the next', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const hash = pool.create();
  await hash.update(randomBytes(2 * MIB));
  // The only way from outside to end the worker under a hash: close the pool.
  await pool.close();
  const error = await t.throwsAsync(hash.digest());
  t.is((error as { code?: string }).code, 'internal');
  t.throws(() => pool.create(), { message: /closed/ });
  const fresh = new HashPool(1);
  t.teardown(() => fresh.close());
  const bytes = randomBytes(2 * MIB);
  const next = fresh.create();
  await next.update(bytes);
  t.is((await next.digest()).toString('hex'), nodeSha256([bytes]));
});

test('a hash used after its digest refuses', async (t) => {
  const pool = new HashPool(1);
  t.teardown(() => pool.close());
  const hash = pool.create();
  await hash.update(randomBytes(10));
  await hash.digest();
  t.throws(() => hash.update(new Uint8Array(1)), { message: /after its digest/ });
  await t.throwsAsync(hash.digest(), { message: /after its digest/ });
});
