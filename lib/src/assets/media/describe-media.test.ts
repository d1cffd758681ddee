import test from 'ava';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { thumbHashToApproximateAspectRatio } from 'thumbhash';
import { alice, chunked, setup } from '../test-support.js';
import { MEDIA_FACTS_VERSION } from './media-facts.js';

const media = (name: string) => readFile(new URL(`../../../../test/fixtures/media/${name}`, import.meta.url));

/** Every fixture with the facts the describer must find (durations to the millisecond as the containers say). */
const EXPECTED: Readonly<Record<string, { type: string; width?: number; height?: number; durationMs?: number; pages?: number }>> = {
  'video.mp4': { type: 'video/mp4', width: 320, height: 240, durationMs: 2000 },
  'video-faststart.mp4': { type: 'video/mp4', width: 320, height: 240, durationMs: 2000 },
  'video-rotated.mp4': { type: 'video/mp4', width: 240, height: 320, durationMs: 2000 },
  'video.mov': { type: 'video/quicktime', width: 320, height: 240, durationMs: 2000 },
  'video.webm': { type: 'video/webm', width: 320, height: 240, durationMs: 2000 },
  'video.mkv': { type: 'video/matroska', width: 320, height: 240, durationMs: 2000 },
  'sound.mp3': { type: 'audio/mpeg', durationMs: 1500 },
  'sound.m4a': { type: 'audio/x-m4a', durationMs: 1500 },
  'sound.aac': { type: 'audio/aac', durationMs: 1500 },
  'sound.ogg': { type: 'audio/ogg', durationMs: 1500 },
  'sound.opus': { type: 'audio/ogg; codecs=opus', durationMs: 1500 },
  'sound.flac': { type: 'audio/flac', durationMs: 1500 },
  'sound.wav': { type: 'audio/wav', durationMs: 1500 },
  'three-pages.pdf': { type: 'application/pdf', pages: 3 },
};

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name}: ${Object.keys(expected)
    .filter((key) => key !== 'type')
    .join(', ')}`, async (t) => {
    const { service, assetStore } = setup();
    const asset = await service.upload(alice, { body: chunked(await media(name)) });
    t.is(asset.type, expected.type);
    t.is(asset.width, expected.width);
    t.is(asset.height, expected.height);
    t.is(asset.pages, expected.pages);
    t.is(asset.placeholder, undefined);
    if (expected.durationMs === undefined) t.is(asset.durationMs, undefined);
    // Encoders pad audio (AAC priming, Opus pre-skip, MP3 frames): within 60 ms of what was asked for.
    else t.true(Math.abs(asset.durationMs! - expected.durationMs) <= 60, `${asset.durationMs} ms`);
    t.is((await assetStore.get('ws-alice', asset.id))?.factsVersion, MEDIA_FACTS_VERSION, 'described by this version');
  });
}

test('images: size as shown and a ThumbHash placeholder of their aspect ratio; SVG gets its size only', async (t) => {
  const { service } = setup();
  const photo = await service.upload(alice, { body: chunked(await media('gps.jpg')) });
  t.like(photo, { width: 40, height: 60 }, 'orientation 6: shown upright');
  t.regex(photo.placeholder ?? '', /^[A-Za-z0-9+/]{20,40}={0,2}$/);
  const ratio = thumbHashToApproximateAspectRatio(Buffer.from(photo.placeholder!, 'base64'));
  t.true(Math.abs(ratio - 40 / 60) < 0.1, `aspect ratio ${ratio}`);
  const alpha = await sharp({ create: { width: 200, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
    .png()
    .toBuffer();
  t.truthy((await service.upload(alice, { body: chunked(alpha) })).placeholder);
  const svg = await service.upload(alice, {
    body: chunked(await readFile(new URL('../../../../test/fixtures/drawing.svg', import.meta.url))),
  });
  t.like(svg, { width: 7, height: 8, placeholder: undefined });
});

test('a replace describes the new file; the old facts go', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(await media('video.webm')) });
  const replaced = await service.replace(alice, asset.id, { body: chunked(await media('three-pages.pdf')) });
  t.like(replaced, { type: 'application/pdf', pages: 3, width: undefined, height: undefined, durationMs: undefined });
});

test('files no parser knows, and empty ones, are stored as before, described (version) without facts', async (t) => {
  const { service, assetStore } = setup();
  for (const bytes of [Buffer.from('plain text\n'), Buffer.alloc(0)]) {
    const asset = await service.upload(alice, { body: chunked(bytes) });
    t.like(asset, { width: undefined, durationMs: undefined, pages: undefined, placeholder: undefined });
    t.is((await assetStore.get('ws-alice', asset.id))?.factsVersion, MEDIA_FACTS_VERSION);
  }
});
