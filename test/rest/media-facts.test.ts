// Media facts, poster frames and metadata stripping over REST, end to end
// (gateway → service → SQLite + disk): every field of every media fixture at
// upload, replace and tus finish; ?frame posters (a decodable JPEG of the
// right size, made once and stored); 501 without ffmpeg (FFMPEG_PATH naming
// nothing); 503 with Retry-After beyond the queue; stripImageMetadata.
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { form } from './support/http.js';
import { tusUpload } from './support/tus.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

const media = (name: string) => readFile(new URL(`../fixtures/media/${name}`, import.meta.url));
const FFMPEG = process.env['FFMPEG_PATH'] || '/usr/bin/ffmpeg';

type AssetJson = {
  id: string;
  type: string;
  url: string;
  size: number;
  sha256: string;
  width?: number;
  height?: number;
  durationMs?: number;
  pages?: number;
  placeholder?: string;
};

let stack: Stack;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0', FFMPEG_PATH: FFMPEG });
});
test.after.always(async () => stack?.stop());

async function upload(target: Stack, headers: Record<string, string>, name: string, bytes?: Buffer): Promise<AssetJson> {
  const response = await fetch(`${target.url}/v1/assets/upload`, {
    method: 'POST',
    headers,
    body: form([['file', { bytes: new Uint8Array(bytes ?? (await media(name))), filename: name }]]),
  });
  if (response.status !== 201) throw new Error(`upload ${name}: ${response.status} ${await response.text()}`);
  return (await response.json()) as AssetJson;
}

const near = (actual: number | undefined, expected: number) => actual !== undefined && Math.abs(actual - expected) <= 60;

test('every media fixture: its facts in the upload answer, in GET and in the listing', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const expectations: [string, (asset: AssetJson) => boolean][] = [
    ['video.mp4', (a) => a.width === 320 && a.height === 240 && near(a.durationMs, 2000)],
    ['video.mov', (a) => a.width === 320 && a.height === 240 && near(a.durationMs, 2000)],
    ['video.webm', (a) => a.width === 320 && a.height === 240 && near(a.durationMs, 2000)],
    ['video.mkv', (a) => a.width === 320 && a.height === 240 && near(a.durationMs, 2000)],
    ['video-rotated.mp4', (a) => a.width === 240 && a.height === 320],
    ['sound.mp3', (a) => near(a.durationMs, 1500) && a.width === undefined],
    ['sound.m4a', (a) => near(a.durationMs, 1500)],
    ['sound.aac', (a) => near(a.durationMs, 1500)],
    ['sound.ogg', (a) => near(a.durationMs, 1500)],
    ['sound.opus', (a) => near(a.durationMs, 1500)],
    ['sound.flac', (a) => near(a.durationMs, 1500)],
    ['sound.wav', (a) => near(a.durationMs, 1500)],
    ['three-pages.pdf', (a) => a.pages === 3 && a.durationMs === undefined],
    ['gps.jpg', (a) => a.width === 40 && a.height === 60 && /^[A-Za-z0-9+/]{20,40}={0,2}$/.test(a.placeholder ?? '')],
  ];
  for (const [name, check] of expectations) {
    const asset = await upload(stack, headers, name);
    t.true(check(asset), `${name}: ${JSON.stringify(asset)}`);
    const got = (await (await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers })).json()) as AssetJson;
    t.deepEqual(got, asset, `${name}: GET says the same`);
  }
  const listed = (await (await fetch(`${stack.url}/v1/assets?type=application/pdf`, { headers })).json()) as { assets: AssetJson[] };
  t.is(listed.assets[0]?.pages, 3);
});

test('replace and tus finish describe the new file', async (t) => {
  const workspace = freshWorkspace();
  const headers = await stack.auth(workspace);
  const asset = await upload(stack, headers, 'sound.wav');
  const response = await fetch(`${stack.url}/v1/assets/${asset.id}/replace`, {
    method: 'POST',
    headers,
    body: form([['file', { bytes: new Uint8Array(await media('video.webm')), filename: 'v.webm' }]]),
  });
  t.like(await response.json(), { type: 'video/webm', width: 320, height: 240 });
  const { assetId } = await tusUpload(await media('three-pages.pdf'), {
    endpoint: `${stack.url}/v1/uploads`,
    headers,
    metadata: { filename: 'doc.pdf' },
  });
  t.like(await (await fetch(`${stack.url}/v1/assets/${assetId}`, { headers })).json(), { type: 'application/pdf', pages: 3 });
});

test("?frame: a decodable JPEG of the video's size, made once and stored; w/h/fit/format apply; signed for a private video", async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const video = await upload(stack, headers, 'video.mp4');
  const first = await fetch(`${video.url}?frame`);
  t.is(first.status, 200);
  t.is(first.headers.get('content-type'), 'image/jpeg');
  const bytes = Buffer.from(await first.arrayBuffer());
  t.like(await sharp(bytes).metadata(), { format: 'jpeg', width: 320, height: 240 });
  t.is(first.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const again = await fetch(`${video.url}?frame`);
  t.is(again.headers.get('etag'), first.headers.get('etag'));
  t.true(Buffer.from(await again.arrayBuffer()).equals(bytes));
  const variants = (await readdir(join(stack.dataDir, 'files'), { recursive: true })).filter(
    (path) => path.includes('.variants/') && path.includes(video.id),
  );
  t.is(variants.length, 1, 'stored once, beside its video');
  const small = await fetch(`${video.url}?frame=1200&w=128&h=128&fit=cover&format=webp`);
  t.like(await sharp(Buffer.from(await small.arrayBuffer())).metadata(), { format: 'webp', width: 128, height: 128 });
  for (const [query, status, field] of [
    ['frame=5000', 400, 'frame'],
    ['frame=x', 400, 'frame'],
    ['frame&frame=1', 400, 'frame'],
    ['w=128', 400, 'w'],
  ] as const) {
    const refused = await fetch(`${video.url}?${query}`);
    t.is(refused.status, status, query);
    t.is(((await refused.json()) as { details: { field: string }[] }).details[0]?.field, field, query);
  }
  const pdf = await upload(stack, headers, 'three-pages.pdf');
  t.is((await fetch(`${pdf.url}?frame`)).status, 400, 'not a video');
  await fetch(`${stack.url}/v1/assets/${video.id}`, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ visibility: 'private' }),
  });
  t.is((await fetch(`${video.url}?frame`)).status, 403);
  const signed = (await (
    await fetch(`${stack.url}/v1/assets/${video.id}/signed-url`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresIn: 60, transform: { frame: 500, w: 64 } }),
    })
  ).json()) as { url: string };
  t.regex(signed.url, /[?&]frame=500(&|$)/);
  const poster = await fetch(signed.url);
  t.is(poster.status, 200);
  t.like(await sharp(Buffer.from(await poster.arrayBuffer())).metadata(), { format: 'jpeg', width: 64 });
});

test.serial('beyond TRANSFORM_CONCURRENCY and its queue, new posters are 503 with Retry-After', async (t) => {
  const one = await startStack({ RATE_LIMIT_PER_SECOND: '0', FFMPEG_PATH: FFMPEG, TRANSFORM_CONCURRENCY: '1' });
  t.teardown(() => one.stop());
  const headers = await one.auth(freshWorkspace());
  const video = await upload(one, headers, 'video.webm');
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => fetch(`${video.url}?frame=${i * 40}`)));
  const busy = answers.filter((answer) => answer.status === 503);
  t.true(busy.length > 0, `statuses ${answers.map((a) => a.status).join(' ')}`);
  t.true(answers.every((answer) => answer.status === 200 || answer.status === 503));
  t.is(busy[0]?.headers.get('retry-after'), '1');
  t.like(await busy[0]!.json(), { code: 'unavailable' });
  await Promise.all(answers.filter((answer) => !answer.bodyUsed).map((answer) => answer.arrayBuffer()));
});

test('stripImageMetadata: off by default; on, photos are stored without EXIF (GPS) and upright; the policy says so', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const policyHeaders = { ...headers, 'content-type': 'application/json' };
  t.like(await (await fetch(`${stack.url}/v1/workspace/policy`, { headers })).json(), { stripImageMetadata: false });
  const kept = await upload(stack, headers, 'gps.jpg');
  t.truthy((await sharp(Buffer.from(await (await fetch(kept.url)).arrayBuffer())).metadata()).exif, 'as it came');
  const set = await fetch(`${stack.url}/v1/workspace/policy`, {
    method: 'PUT',
    headers: policyHeaders,
    body: JSON.stringify({ stripImageMetadata: true }),
  });
  t.like(await set.json(), { stripImageMetadata: true });
  t.is(
    (
      await fetch(`${stack.url}/v1/workspace/policy`, {
        method: 'PUT',
        headers: policyHeaders,
        body: JSON.stringify({ stripImageMetadata: 'yes' }),
      })
    ).status,
    400,
  );
  for (const name of ['gps.jpg', 'gps.png', 'gps.webp', 'gps.avif']) {
    const asset = await upload(stack, headers, name);
    const stored = Buffer.from(await (await fetch(asset.url)).arrayBuffer());
    const metadata = await sharp(stored).metadata();
    t.like(metadata, { exif: undefined, xmp: undefined, iptc: undefined, width: 40, height: 60 }, name);
    t.is(asset.size, stored.length, name);
  }
});

test.serial(
  'without ffmpeg (FFMPEG_PATH naming nothing) ?frame is 501 unimplemented with a clear message; everything else works',
  async (t) => {
    const bare = await startStack({ FFMPEG_PATH: '/nonexistent/ffmpeg' });
    t.teardown(() => bare.stop());
    const headers = await bare.auth(freshWorkspace());
    const video = await upload(bare, headers, 'video.mp4');
    t.like(video, { width: 320, height: 240 }, 'facts need no ffmpeg');
    const refused = await fetch(`${video.url}?frame`);
    t.is(refused.status, 501);
    const body = (await refused.json()) as { code: string; message: string };
    t.is(body.code, 'unimplemented');
    t.regex(body.message, /ffmpeg/);
    t.is((await fetch(video.url)).status, 200, 'the file itself');
    t.true(
      bare.serviceLogLines.some((line) => line.includes('FFMPEG_PATH names no executable')),
      'said at start',
    );
  },
);
