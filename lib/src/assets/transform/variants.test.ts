import test from 'ava';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { SwitchyardError } from '../../errors.js';
import { MemoryAssetStore, MemoryBlobStore } from '../../memory/index.js';
import { collectGarbage } from '../../maintenance/collect-garbage.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { createManualClock } from '../../testing/index.js';
import { bytesOf } from '../../testing/streams.js';
import { alice, chunked, pathOf, setup } from '../test-support.js';
import { parseTransform } from './transform-params.js';
import { sourceOfVariantKey, variantKeyFor, VariantMaker } from './variants.js';

const SIZES = [64, 128, 256];

async function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .jpeg()
    .toBuffer();
}

test('parameters: sizes from the list, fit and format from theirs, q 1-100; every refusal names its parameter', (t) => {
  t.deepEqual(
    { ...parseTransform({ w: '64' }, SIZES) },
    { width: 64, height: undefined, fit: 'inside', format: undefined, quality: undefined },
  );
  t.deepEqual(
    { ...parseTransform({ w: '64', h: '128', fit: 'cover', format: 'webp', q: '75' }, SIZES) },
    { width: 64, height: 128, fit: 'cover', format: 'webp', quality: 75 },
  );
  for (const [query, field] of [
    [{ w: '65' }, 'w'],
    [{ w: '064x' }, 'w'],
    [{ h: '1e2' }, 'h'],
    [{ fit: 'cover' }, 'w'],
    [{ w: '64', fit: 'squash' }, 'fit'],
    [{ w: '64', format: 'gif' }, 'format'],
    [{ w: '64', format: 'auto' }, 'format'],
    [{ w: '64', q: '0' }, 'q'],
    [{ w: '64', q: '101' }, 'q'],
  ] as const) {
    const error = t.throws(() => parseTransform(query, SIZES), { instanceOf: SwitchyardError });
    t.is(error?.details[0]?.field, field, JSON.stringify(query));
  }
});

test('a variant is made once for any number of concurrent requests, stored beside its source, and read back after', async (t) => {
  const { service, blobStore } = setup();
  const asset = await service.upload(alice, { body: chunked(await jpeg(800, 600)) });
  let puts = 0;
  const put = blobStore.put.bind(blobStore);
  blobStore.put = async (key: string, body: Readable) => {
    puts += 1;
    return put(key, body);
  };
  const opened = await Promise.all(
    Array.from({ length: 200 }, () => service.openFile(pathOf(asset.url), { transform: { w: '128', format: 'webp' }, infoOnly: true })),
  );
  t.is(puts, 1, 'made once');
  t.is(new Set(opened.map((file) => file.sha256)).size, 1);
  t.is(opened[0]!.type, 'image/webp');
  const file = await service.openFile(pathOf(asset.url), { transform: { w: '128', format: 'webp' } });
  const chunks: Buffer[] = [];
  for await (const chunk of file.body!) chunks.push(chunk as Buffer);
  const metadata = await sharp(Buffer.concat(chunks)).metadata();
  t.deepEqual([metadata.format, metadata.width, metadata.height], ['webp', 128, 96]);
  t.is(puts, 1, 'the second request is a read');
});

test("a variant found or made once is served again without a stat; one removed behind the maker's back is made again", async (t) => {
  const { service, blobStore } = setup();
  const asset = await service.upload(alice, { body: chunked(await jpeg(400, 300)) });
  const first = await service.openFile(pathOf(asset.url), { transform: { w: '64', format: 'webp' } });
  first.body!.resume();
  let stats = 0;
  const stat = blobStore.stat.bind(blobStore);
  blobStore.stat = async (key: string) => {
    stats += 1;
    return stat(key);
  };
  const again = await service.openFile(pathOf(asset.url), { transform: { w: '64', format: 'webp' } });
  again.body!.resume();
  t.is(stats, 0, 'a known variant is read straight away');
  t.is(again.sha256, first.sha256);
  const variantKeys: string[] = [];
  for await (const blob of blobStore.list()) if (sourceOfVariantKey(blob.key) !== undefined) variantKeys.push(blob.key);
  t.is(variantKeys.length, 1);
  await blobStore.delete(variantKeys[0]!);
  const remade = await service.openFile(pathOf(asset.url), { transform: { w: '64', format: 'webp' } });
  const chunks: Buffer[] = [];
  for await (const chunk of remade.body!) chunks.push(chunk as Buffer);
  t.is(Buffer.concat(chunks).length, remade.size, 'made again, not a 404');
  t.is(remade.sha256, first.sha256);
});

test('beyond the queue a transformation is refused with unavailable and a retry hint, before any work', async (t) => {
  const blobs = new MemoryBlobStore();
  const assets = new MemoryAssetStore();
  const { service } = setup({ assetStore: assets, blobStore: blobs });
  const asset = await service.upload(alice, { body: chunked(await jpeg(2000, 1500)) });
  const record = (await assets.get('ws-alice', asset.id))!;
  const maker = new VariantMaker(blobs, { sizes: SIZES, maxPixels: 50_000_000, concurrency: 1, queue: 2 });
  const results = await Promise.allSettled(
    SIZES.flatMap((w) => ['jpeg', 'png', 'webp'].map((format) => maker.variant(record, parseTransform({ w: String(w), format }, SIZES)))),
  );
  const refused = results
    .filter((result): result is PromiseRejectedResult => result.status === 'rejected')
    .map((result) => result.reason as SwitchyardError);
  t.is(results.length - refused.length, 3, 'one running, two waiting');
  t.true(refused.every((error) => error.code === 'unavailable' && error.retryAfterMs === 1_000));
});

test('the observer hears the queue, each piece of work by format and outcome, and each refusal; storing happens after the slot is freed', async (t) => {
  const blobs = new MemoryBlobStore();
  const assets = new MemoryAssetStore();
  const { service } = setup({ assetStore: assets, blobStore: blobs });
  const asset = await service.upload(alice, { body: chunked(await jpeg(1200, 900)) });
  const record = (await assets.get('ws-alice', asset.id))!;
  const queue: [number, number][] = [];
  const worked: string[] = [];
  let refused = 0;
  let runningAtPut = -1;
  const maker = new VariantMaker(
    blobs,
    { sizes: SIZES, maxPixels: 50_000_000, concurrency: 1, queue: 1 },
    {
      queue: (waiting, running) => void queue.push([waiting, running]),
      worked: (format, outcome, seconds) => void worked.push(`${format} ${outcome} ${seconds > 0}`),
      refused: () => void (refused += 1),
    },
  );
  const put = blobs.put.bind(blobs);
  blobs.put = async (key: string, body: Readable) => {
    runningAtPut = queue.at(-1)![1];
    return put(key, body);
  };
  const results = await Promise.allSettled(
    ['jpeg', 'png', 'webp'].map((format) => maker.variant(record, parseTransform({ w: '64', format }, SIZES))),
  );
  t.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'fulfilled', 'rejected'],
    'one running, one waiting, one refused',
  );
  t.is(refused, 1);
  t.deepEqual(worked, ['jpeg ok true', 'png ok true']);
  t.deepEqual(
    queue,
    [
      [0, 1],
      [1, 1],
      [0, 1],
      [0, 0],
    ],
    'running, one waits, it takes the slot, the slot is free',
  );
  t.is(runningAtPut, 0, 'the variant is stored after its slot is released');
  const broken = await service.upload(alice, { body: chunked((await jpeg(300, 200)).subarray(0, 400)) });
  const brokenRecord = (await assets.get('ws-alice', broken.id))!;
  await t.throwsAsync(maker.variant(brokenRecord, parseTransform({ w: '64', format: 'webp' }, SIZES)), { instanceOf: SwitchyardError });
  t.is(worked.at(-1), 'webp invalid true');
});

test('sources over the pixel limit, undecodable bytes and non-images are invalid_argument', async (t) => {
  const { service, assetStore } = setup();
  const big = await service.upload(alice, { body: chunked(await jpeg(300, 200)) });
  const limited = setup();
  await t.notThrowsAsync(service.openFile(pathOf(big.url), { transform: { w: '64' }, infoOnly: true }));
  const truncated = (await jpeg(300, 200)).subarray(0, 400);
  const broken = await limited.service.upload(alice, { body: chunked(truncated) });
  t.is(broken.type, 'image/jpeg');
  const undecodable = await t.throwsAsync(limited.service.openFile(pathOf(broken.url), { transform: { w: '64' } }), {
    instanceOf: SwitchyardError,
  });
  t.is(undecodable?.code, 'invalid_argument');
  const text = await service.upload(alice, { body: chunked(Buffer.from('plain text\n')) });
  t.is(
    (await t.throwsAsync(service.openFile(pathOf(text.url), { transform: { w: '64' } }), { instanceOf: SwitchyardError }))?.code,
    'invalid_argument',
  );
  const maker = new VariantMaker(new MemoryBlobStore(), { sizes: SIZES, maxPixels: 1000, concurrency: 1, queue: 1 });
  const record = (await assetStore.get('ws-alice', big.id))!;
  await t.throwsAsync(
    maker.variant(record, parseTransform({ w: '64' }, SIZES)),
    { message: /TRANSFORM_MAX_PIXELS/ },
    '300 × 200 is over a limit of 1,000',
  );
});

test('where the store names local files, sharp reads the source from its file, not through the store; a file it cannot read is read through the store', async (t) => {
  const inner = new MemoryBlobStore();
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-local-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const streamedKeys: string[] = [];
  let filesGone = false;
  let unreadable = false;
  const blobStore: BlobStore = {
    put: (key, body) => inner.put(key, body),
    get: (key, range) => {
      streamedKeys.push(key);
      return inner.get(key, range);
    },
    stat: (key) => inner.stat(key),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    check: () => inner.check(),
    // A store of local files, as the disk store is: here each blob is written out when its path is asked for.
    localPath: async (key) => {
      const body = await inner.get(key);
      if (body === undefined) return undefined;
      const path = join(dir, key.replaceAll('/', '_')) + (unreadable ? '.d' : '');
      if (!filesGone) await writeFile(path, await bytesOf(body));
      return path;
    },
  };
  const { service, assetStore } = setup({ blobStore });
  const asset = await service.upload(alice, { body: chunked(await jpeg(800, 600)) });
  const sourceKey = (await assetStore.get('ws-alice', asset.id))!.blobKey;
  const file = await service.openFile(pathOf(asset.url), { transform: { w: '128', format: 'webp' } });
  t.is((await sharp(await bytesOf(file.body!)).metadata()).width, 128);
  t.false(streamedKeys.includes(sourceKey), 'the source was not read through the store');
  // A file libvips cannot read (here a folder where the file should be): the bytes come through the store.
  filesGone = true;
  await mkdir(join(dir, sourceKey.replaceAll('/', '_') + '.d'));
  unreadable = true;
  const fallback = await service.openFile(pathOf(asset.url), { transform: { w: '64', format: 'webp' } });
  t.is((await sharp(await bytesOf(fallback.body!)).metadata()).width, 64);
  t.true(streamedKeys.includes(sourceKey), 'read through the store after libvips failed');
  // Gone from the store as well (a delete meanwhile): not_found, as the store says.
  unreadable = false;
  await inner.delete(sourceKey);
  const gone = await t.throwsAsync(service.openFile(pathOf(asset.url), { transform: { w: '64', h: '64', format: 'webp' } }), {
    instanceOf: SwitchyardError,
  });
  t.is(gone?.code, 'not_found');
});

test('variant keys sit beside their source; gc keeps the variants of current blobs and removes those of replaced ones', async (t) => {
  t.is(sourceOfVariantKey(variantKeyFor('ws/as_1/bl_1', 'x')), 'ws/as_1/bl_1');
  t.is(sourceOfVariantKey('ws/as_1/bl_1'), undefined);
  const { service, assetStore, blobStore } = setup();
  const asset = await service.upload(alice, { body: chunked(await jpeg(400, 300)) });
  await service.openFile(pathOf(asset.url), { transform: { w: '64' }, infoOnly: true });
  const clock = createManualClock(Date.now() + 2 * 3_600_000);
  t.deepEqual((await collectGarbage({ blobStore, assetStore, clock })).deleted, [], 'a current blob keeps its variants');
  await service.replace(alice, asset.id, { body: chunked(await jpeg(200, 100)) });
  const report = await collectGarbage({ blobStore, assetStore, clock });
  t.is(report.deleted.length, 1);
  t.truthy(sourceOfVariantKey(report.deleted[0]!), 'the old blob went with the replace; its variant goes now');
});
