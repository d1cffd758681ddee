import test from 'ava';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { SwitchyardError } from '../../errors.js';
import { bytesOf } from '../../testing/streams.js';
import { alice, chunked, pathOf, setup } from '../test-support.js';

const media = (name: string) => readFile(new URL(`../../../../test/fixtures/media/${name}`, import.meta.url));
/** Debian's ffmpeg (.ci/run installs it when missing). */
const FFMPEG = process.env['FFMPEG_PATH'] || '/usr/bin/ffmpeg';

async function poster(service: ReturnType<typeof setup>['service'], url: string, transform: Record<string, string>) {
  const file = await service.openFile(pathOf(url), { transform });
  const bytes = await bytesOf(file.body!);
  return { file, bytes, metadata: await sharp(bytes).metadata() };
}

test("?frame: a JPEG of the frame at that time, at the video's shown size; transform parameters apply; made once", async (t) => {
  const { service, blobStore } = setup({ posterFrames: { ffmpegPath: FFMPEG } });
  let puts = 0;
  const put = blobStore.put.bind(blobStore);
  blobStore.put = async (key: string, body: Readable) => {
    puts += 1;
    return put(key, body);
  };
  const video = await service.upload(alice, { body: chunked(await media('video.mp4')) });
  puts = 0;
  const first = await poster(service, video.url, { frame: '' });
  t.like(first.metadata, { format: 'jpeg', width: 320, height: 240 });
  t.is(first.file.type, 'image/jpeg');
  const later = await poster(service, video.url, { frame: '1500' });
  t.not(later.file.sha256, first.file.sha256, 'another time, another variant');
  t.false(later.bytes.equals(first.bytes), 'the pattern moves');
  const small = await poster(service, video.url, { frame: '1000', w: '128', format: 'webp' });
  t.like(small.metadata, { format: 'webp', width: 128, height: 96 });
  t.is(puts, 3);
  const again = await Promise.all(
    Array.from({ length: 20 }, () => poster(service, video.url, { frame: '1000', w: '128', format: 'webp' })),
  );
  t.is(puts, 3, 'stored once, then read');
  t.true(again.every((p) => p.file.sha256 === small.file.sha256));
  const rotated = await service.upload(alice, { body: chunked(await media('video-rotated.mp4')) });
  t.like((await poster(service, rotated.url, { frame: '' })).metadata, { width: 240, height: 320 }, 'a phone video upright');
  const webm = await service.upload(alice, { body: chunked(await media('video.webm')) });
  t.like((await poster(service, webm.url, { frame: '500', h: '128' })).metadata, { format: 'jpeg', width: 171, height: 128 });
});

test('refusals: past the end, not a video, a bad time; without ffmpeg unimplemented', async (t) => {
  const { service } = setup({ posterFrames: { ffmpegPath: FFMPEG } });
  const video = await service.upload(alice, { body: chunked(await media('video.mp4')) });
  const code = async (url: string, transform: Record<string, string>) =>
    (await t.throwsAsync(service.openFile(pathOf(url), { transform }), { instanceOf: SwitchyardError }))?.code;
  t.is(await code(video.url, { frame: '2000' }), 'invalid_argument', 'the video is 2000 ms long');
  t.is(await code(video.url, { frame: '1.5' }), 'invalid_argument');
  t.is(await code(video.url, { frame: '99999999999' }), 'invalid_argument');
  const pdf = await service.upload(alice, { body: chunked(await media('three-pages.pdf')) });
  t.is(await code(pdf.url, { frame: '' }), 'invalid_argument');
  t.is(await code(video.url, { w: '128' }), 'invalid_argument', 'w alone on a video: it is not an image');
  for (const ffmpegPath of [undefined, '/nonexistent/ffmpeg']) {
    const none = setup({ posterFrames: { ffmpegPath } });
    const clip = await none.service.upload(alice, { body: chunked(await media('video.mp4')) });
    const error = await t.throwsAsync(none.service.openFile(pathOf(clip.url), { transform: { frame: '' } }), {
      instanceOf: SwitchyardError,
    });
    t.is(error?.code, 'unimplemented', String(ffmpegPath));
    t.regex(error?.message ?? '', /ffmpeg/);
    t.is((await none.service.openFile(pathOf(clip.url))).size, clip.size, 'the file itself is served');
  }
});

test('ffmpeg past its deadline is killed: unavailable with a retry hint', async (t) => {
  const { service } = setup({ posterFrames: { ffmpegPath: FFMPEG, timeoutMs: 1 } });
  const video = await service.upload(alice, { body: chunked(await media('video.mp4')) });
  const error = await t.throwsAsync(service.openFile(pathOf(video.url), { transform: { frame: '' } }), { instanceOf: SwitchyardError });
  t.like(error, { code: 'unavailable' });
  t.true((error?.retryAfterMs ?? 0) > 0);
});
