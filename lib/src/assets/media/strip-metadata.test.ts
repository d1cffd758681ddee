import test from 'ava';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import sharp from 'sharp';
import { MemoryBlobStore } from '../../memory/memory-blob-store.js';
import { bytesOf } from '../../testing/streams.js';
import { alice, chunked, listBlobs, pathOf, setup } from '../test-support.js';

const media = (name: string) => readFile(new URL(`../../../../test/fixtures/media/${name}`, import.meta.url));

/** Whether EXIF holds a GPS directory (tag 0x8825, in either byte order). */
function hasGps(exif: Buffer | undefined): boolean {
  return exif !== undefined && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])));
}

for (const [name, format] of [
  ['gps.jpg', 'jpeg'],
  ['gps.png', 'png'],
  ['gps.webp', 'webp'],
  ['gps.avif', 'heif'],
] as const) {
  test(`stripImageMetadata: ${name} is stored without EXIF, XMP or IPTC, upright, its size and sha256 the stored file's`, async (t) => {
    const { service, blobStore } = setup();
    const original = await media(name);
    t.true(hasGps((await sharp(original).metadata()).exif), 'the fixture has GPS');
    await service.setPolicy(alice, { stripImageMetadata: true });
    const asset = await service.upload(alice, { body: chunked(original) });
    const file = await service.openFile(pathOf(asset.url));
    const stored = await bytesOf(file.body!);
    const metadata = await sharp(stored).metadata();
    t.like(metadata, { format, exif: undefined, xmp: undefined, iptc: undefined });
    t.not(metadata.orientation ?? 1, 6);
    t.deepEqual([metadata.width, metadata.height], [40, 60], 'the orientation applied to the pixels');
    t.like(asset, { width: 40, height: 60, size: stored.length, sha256: createHash('sha256').update(stored).digest('hex') });
    // Upright: the red half is on top now.
    const { data } = await sharp(stored).resize(1, 2, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
    t.true(data[0]! > data[2]! && data[5]! > data[3]!, `red above blue: ${[...data].join(',')}`);
    t.is((await listBlobs(blobStore)).length, 1, 'only the stripped file is stored');
    t.truthy(asset.placeholder, 'described after stripping');
  });
}

test('off by default: the file is stored as it came', async (t) => {
  const { service } = setup();
  const original = await media('gps.jpg');
  const asset = await service.upload(alice, { body: chunked(original) });
  t.is(asset.sha256, createHash('sha256').update(original).digest('hex'));
});

test('an image that cannot be decoded is refused where the policy strips, and nothing is stored', async (t) => {
  const { service, blobStore } = setup();
  await service.setPolicy(alice, { stripImageMetadata: true });
  const broken = Buffer.concat([(await media('gps.jpg')).subarray(0, 200), Buffer.alloc(100)]);
  const error = await t.throwsAsync(service.upload(alice, { body: chunked(broken) }));
  t.like(error, { code: 'invalid_argument' });
  t.regex(error?.message ?? '', /metadata/);
  t.deepEqual(await listBlobs(blobStore), []);
  const text = await service.upload(alice, { body: chunked(Buffer.from('not an image\n')) });
  t.is(text.type, 'text/plain', 'other types pass untouched');
});

test('a store that takes its time before reading gets every byte of the stripped file: the size and sha256 are of what it stored', async (t) => {
  // A disk put makes its temp folder before it reads; bytes counted before the store reads must not be lost.
  class SlowStore extends MemoryBlobStore {
    override async put(key: string, body: Readable): Promise<void> {
      await delay(50);
      return super.put(key, body);
    }
  }
  const blobStore = new SlowStore();
  const { service } = setup({ blobStore });
  await service.setPolicy(alice, { stripImageMetadata: true });
  for (const name of ['gps.jpg', 'gps.png']) {
    const asset = await service.upload(alice, { body: chunked(await media(name)) });
    const stored = await bytesOf((await service.openFile(pathOf(asset.url))).body!);
    t.like(asset, { size: stored.length, sha256: createHash('sha256').update(stored).digest('hex') }, name);
    t.like(await sharp(stored).metadata(), { width: 40, height: 60 }, `${name} decodes whole`);
  }
});
