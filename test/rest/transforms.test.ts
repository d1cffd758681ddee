// Image transformations on file urls, end to end with real images: each
// parameter and refusal, sizes and formats read back with sharp, EXIF
// orientation, format=auto with Vary, variants of the new bytes after a
// replace, signed transform urls of private assets, one piece of work for many
// concurrent requests, and 503 with Retry-After beyond the queue.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { fixtureFile, form, type FormFile } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0' });
});
test.after.always(async () => stack?.stop());

async function upload(
  headers: Record<string, string>,
  bytes: Uint8Array,
  name: string,
  visibility?: string,
): Promise<{ id: string; url: string; type: string }> {
  const file: FormFile = { bytes: new Uint8Array(bytes), filename: name };
  const parts: [string, string | FormFile][] = [['file', file]];
  if (visibility) parts.push(['visibility', visibility]);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form(parts) });
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; url: string; type: string };
}

async function image(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; format?: string; width?: number; height?: number; channels?: number; body: Buffer }> {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) return { status: response.status, headers: response.headers, body };
  const metadata = await sharp(body).metadata();
  return {
    status: 200,
    headers: response.headers,
    format: metadata.format,
    width: metadata.width,
    height: metadata.height,
    channels: metadata.channels,
    body,
  };
}

const photo = (width: number, height: number, options: { orientation?: number } = {}) =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 220 } } })
    .jpeg()
    .withMetadata(options.orientation ? { orientation: options.orientation } : {})
    .toBuffer();

test('w, h, fit, format and q: sizes and formats as asked, never enlarged, metadata stripped, EXIF orientation applied', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const jpeg = await upload(headers, await photo(1200, 800), 'p.jpg');
  t.like(await image(`${jpeg.url}?w=256`), { status: 200, format: 'jpeg', width: 256, height: 171 }, 'inside, the source format');
  t.like(await image(`${jpeg.url}?w=256&h=256&fit=cover&format=webp`), { format: 'webp', width: 256, height: 256 });
  t.like(await image(`${jpeg.url}?w=256&h=256&fit=contain&format=png`), { format: 'png', width: 256, height: 256 });
  t.like(await image(`${jpeg.url}?w=256&h=128&fit=fill&format=avif`), { format: 'heif', width: 256, height: 128 });
  t.like(await image(`${jpeg.url}?w=3840`), { width: 1200, height: 800 }, 'never enlarged');
  const low = await image(`${jpeg.url}?w=512&q=5`);
  const high = await image(`${jpeg.url}?w=512&q=95`);
  t.true(low.body.length < high.body.length, 'q sets the quality');
  t.is((await sharp(high.body).metadata()).exif, undefined, 'no EXIF in the output');

  // Stored as 1200 × 800 with orientation 6: shown 800 × 1200, and so transformed.
  const rotated = await upload(headers, await photo(1200, 800, { orientation: 6 }), 'rotated.jpg');
  t.like(await image(`${rotated.url}?h=256`), { width: 171, height: 256 });

  const alpha = await upload(
    headers,
    await sharp({ create: { width: 300, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
      .png()
      .toBuffer(),
    'a.png',
  );
  t.like(await image(`${alpha.url}?w=64`), { format: 'png', width: 64, channels: 4 }, 'alpha kept');
  const webp = await upload(
    headers,
    await sharp({ create: { width: 300, height: 150, channels: 3, background: '#888' } })
      .webp()
      .toBuffer(),
    'w.webp',
  );
  t.like(await image(`${webp.url}?w=128`), { format: 'webp', width: 128, height: 64 });
  const gif = await upload(headers, (await fixtureFile('anim.gif')).bytes, 'anim.gif');
  t.like(await image(`${gif.url}?w=16&format=webp`), { status: 200, format: 'webp' }, 'an animated GIF: its first frame');
});

test('caching: an ETag per variant, immutable like its file; format=auto picks from Accept and says Vary: Accept', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const jpeg = await upload(headers, await photo(600, 400), 'p.jpg');
  const first = await image(`${jpeg.url}?w=128&format=webp`);
  const other = await image(`${jpeg.url}?w=256&format=webp`);
  t.regex(first.headers.get('etag') ?? '', /^"[0-9a-f]{64}"$/);
  t.not(first.headers.get('etag'), other.headers.get('etag'));
  t.is(first.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is((await fetch(`${jpeg.url}?w=128&format=webp`, { headers: { 'if-none-match': first.headers.get('etag')! } })).status, 304);
  const avif = await image(`${jpeg.url}?w=128&format=auto`, { headers: { accept: 'image/avif,image/webp,*/*' } });
  t.is(avif.headers.get('content-type'), 'image/avif');
  t.is(avif.headers.get('vary'), 'Accept');
  t.is((await image(`${jpeg.url}?w=128&format=auto`, { headers: { accept: 'image/webp,*/*' } })).headers.get('content-type'), 'image/webp');
  t.is(
    (await image(`${jpeg.url}?w=128&format=auto`, { headers: { accept: '*/*' } })).headers.get('content-type'),
    'image/jpeg',
    'the source format',
  );
  const ranged = await fetch(`${jpeg.url}?w=128&format=webp`, { headers: { range: 'bytes=0-9' } });
  t.is(ranged.status, 206);
  t.is((await ranged.arrayBuffer()).byteLength, 10);
});

test('refusals: bad or repeated parameters, a non-image, an SVG, a truncated JPEG and a 60-megapixel PNG are 400 JSON, never 500', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const jpeg = await upload(headers, await photo(300, 200), 'p.jpg');
  for (const query of [
    'w=65',
    'w=abc',
    'w=64&w=128',
    'h=-1',
    'fit=cover',
    'w=64&fit=squash',
    'w=64&format=gif',
    'w=64&q=0',
    'w=64&q=101',
    'w=64&q=x',
  ]) {
    const response = await fetch(`${jpeg.url}?${query}`);
    t.is(response.status, 400, query);
    t.is(((await response.json()) as { code: string }).code, 'invalid_argument', query);
  }
  const pdf = await upload(headers, (await fixtureFile('document.pdf')).bytes, 'd.pdf');
  t.is((await fetch(`${pdf.url}?w=64`)).status, 400, 'a PDF');
  const svg = await upload(headers, (await fixtureFile('drawing.svg')).bytes, 'd.svg');
  t.is((await fetch(`${svg.url}?w=64`)).status, 400, 'an SVG is not rendered');
  const truncated = await upload(headers, (await photo(800, 600)).subarray(0, 600), 'cut.jpg');
  t.is(truncated.type, 'image/jpeg');
  t.is((await fetch(`${truncated.url}?w=64`)).status, 400, 'a truncated JPEG');
  const huge = await sharp({ create: { width: 8000, height: 7500, channels: 3, background: '#fff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  const bomb = await upload(headers, huge, 'huge.png');
  const refused = await fetch(`${bomb.url}?w=64`);
  t.is(refused.status, 400, '60 megapixels is over TRANSFORM_MAX_PIXELS');
  t.regex(((await refused.json()) as { message: string }).message, /TRANSFORM_MAX_PIXELS/);
  t.is((await fetch(`${jpeg.url}?v=2`)).status, 200, 'other query parameters are not transform parameters');
});

test('after a replace the variants are of the new bytes; 200 concurrent requests for a new variant make it once', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const before = await upload(headers, await photo(800, 400), 'p.jpg');
  t.like(await image(`${before.url}?w=128`), { width: 128, height: 64 });
  const replaced = await fetch(`${stack.url}/v1/assets/${before.id}/replace`, {
    method: 'POST',
    headers,
    body: form([['file', { bytes: new Uint8Array(await photo(400, 800)), filename: 'q.jpg' }]]),
  });
  const after = (await replaced.json()) as { url: string };
  t.is((await fetch(`${before.url}?w=128`)).status, 404, "the old file's variants are gone with its url");
  t.like(await image(`${after.url}?w=128`), { width: 128, height: 256 }, 'of the new bytes');

  const fresh = await upload(headers, await photo(1600, 1200), 'big.jpg');
  const answers = await Promise.all(
    Array.from({ length: 200 }, () =>
      fetch(`${fresh.url}?w=384&format=webp`).then(async (response) => [
        response.status,
        response.headers.get('etag'),
        (await response.arrayBuffer()).byteLength,
      ]),
    ),
  );
  t.true(answers.every(([status]) => status === 200));
  t.is(new Set(answers.map(([, etag, size]) => `${etag} ${size}`)).size, 1, 'the same variant for all');
  const blobId = new URL(fresh.url).pathname
    .split('/')
    .at(-1)!
    .replace(/\.[a-z0-9]+$/, '');
  const entries = (await readdir(join(stack.dataDir, 'files'), { recursive: true })).map(String);
  t.is(entries.filter((entry) => entry.includes(`${blobId}.variants/`)).length, 1, 'one variant stored');
});

test('a private asset: a transform url needs a signature that covers its parameters', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const asset = await upload(headers, await photo(600, 400), 'p.jpg', 'private');
  t.is((await fetch(`${asset.url}?w=128`)).status, 403);
  const signedResponse = await fetch(`${stack.url}/v1/assets/${asset.id}/signed-url`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ expiresIn: 600, transform: { w: 128, format: 'auto' } }),
  });
  t.is(signedResponse.status, 200);
  const { url } = (await signedResponse.json()) as { url: string };
  t.regex(url, /[?&]w=128&/);
  const served = await image(url, { headers: { accept: 'image/webp' } });
  t.like(served, { status: 200, format: 'webp', width: 128 });
  t.is(served.headers.get('cache-control'), 'private, no-cache');
  t.is((await fetch(url.replace('w=128', 'w=256'))).status, 403, 'another size is not signed');
  t.is((await fetch(`${url}&h=64`)).status, 403, 'an added parameter is not signed');
  const badTransform = await fetch(`${stack.url}/v1/assets/${asset.id}/signed-url`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ expiresIn: 600, transform: { w: 100 } }),
  });
  t.is(badTransform.status, 400, 'a signed url only carries valid parameters');
});

test('beyond TRANSFORM_CONCURRENCY and its queue a transformation is 503 with Retry-After, and the server stays healthy', async (t) => {
  const narrow = await startStack({ RATE_LIMIT_PER_SECOND: '0', TRANSFORM_CONCURRENCY: '1' });
  try {
    const headers = await narrow.auth(freshWorkspace());
    // Noise, so each transformation takes real work.
    const source = await sharp(randomBytes(3000 * 2000 * 3), { raw: { width: 3000, height: 2000, channels: 3 } })
      .jpeg()
      .toBuffer();
    const response = await fetch(`${narrow.url}/v1/assets/upload`, {
      method: 'POST',
      headers,
      body: form([['file', { bytes: new Uint8Array(source), filename: 'n.jpg' }]]),
    });
    const { url } = (await response.json()) as { url: string };
    const variants = [16, 32, 48, 64, 96, 128, 256, 384, 512, 640, 750, 828, 1080, 1200].flatMap((w) =>
      ['jpeg', 'png', 'webp'].map((format) => `${url}?w=${w}&format=${format}`),
    );
    const answers = await Promise.all(
      variants.map((variant) =>
        fetch(variant).then(async (res) => ({
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          body: await res.arrayBuffer(),
        })),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    t.true(refused.length > 0, `${refused.length} of ${answers.length} refused`);
    t.true(refused.every((answer) => answer.retryAfter === '1'));
    t.true(answers.every((answer) => answer.status === 200 || answer.status === 503));
    t.is((await fetch(`${narrow.url}/healthz`)).status, 200);
  } finally {
    await narrow.stop();
  }
});
