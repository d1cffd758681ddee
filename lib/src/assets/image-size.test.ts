import test from 'ava';
import sharp from 'sharp';
import { imageSize } from './image-size.js';
import { SNIFF_HEAD_BYTES } from './sniff.js';
import { generatedBytes } from '../testing/streams.js';
import { readFixture } from './test-support.js';
import { webpSize } from './webp-size.js';

const FIXTURE_SIZES: ReadonlyArray<readonly [string, string, number, number]> = [
  ['image.png', 'image/png', 3, 2],
  ['photo.jpg', 'image/jpeg', 4, 3],
  ['anim.gif', 'image/gif', 5, 4],
  ['image.webp', 'image/webp', 6, 5],
  ['drawing.svg', 'image/svg+xml', 7, 8],
];

for (const [name, type, width, height] of FIXTURE_SIZES) {
  test(`${name} is ${width}x${height}`, async (t) => {
    t.deepEqual(await imageSize(type, await readFixture(name)), { width, height });
  });
}

/** A large image of noise (so it does not compress into the head). */
function bigImage(channels: 3 | 4): ReturnType<typeof sharp> {
  return sharp(generatedBytes(1500 * 1000 * channels), { raw: { width: 1500, height: 1000, channels } });
}

const LARGE_IMAGES = {
  jpeg: () => bigImage(3).jpeg().toBuffer(),
  png: () => bigImage(3).png().toBuffer(),
  'webp (lossy, VP8)': () => bigImage(3).webp().toBuffer(),
  'webp (lossless, VP8L)': () => bigImage(3).webp({ lossless: true }).toBuffer(),
  'webp (with alpha, VP8X)': () => bigImage(4).webp().toBuffer(),
};

for (const [name, encode] of Object.entries(LARGE_IMAGES)) {
  test(`the head of a large ${name} gives its size`, async (t) => {
    const file = await encode();
    t.true(file.length > SNIFF_HEAD_BYTES, 'the file must be larger than the head for this test to mean anything');
    const type = name.startsWith('webp') ? 'image/webp' : `image/${name}`;
    t.deepEqual(await imageSize(type, file.subarray(0, SNIFF_HEAD_BYTES)), { width: 1500, height: 1000 });
  });
}

test('EXIF orientation is applied: a rotated JPEG reports its displayed size', async (t) => {
  const jpeg = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#000' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  t.deepEqual(await imageSize('image/jpeg', jpeg), { width: 3, height: 4 });
});

test('non-images, unsupported images and broken bytes have no size, without throwing', async (t) => {
  t.is(await imageSize('application/pdf', await readFixture('document.pdf')), undefined);
  t.is(await imageSize('image/png', Buffer.from('not a png at all')), undefined);
  t.is(await imageSize('image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10"')), undefined);
  t.is(await imageSize('image/x-icon', Buffer.alloc(100)), undefined);
  t.is(await imageSize('image/webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), undefined);
});

test('webpSize refuses what is not a WebP header', (t) => {
  t.is(webpSize(Buffer.alloc(40)), undefined);
  const header = Buffer.alloc(40);
  header.write('RIFF', 0, 'latin1');
  header.write('WEBPABCD', 8, 'latin1');
  t.is(webpSize(header), undefined);
});
