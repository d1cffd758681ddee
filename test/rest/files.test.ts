// Serving stored files under CDN_URL: headers, ranges, conditional requests, HEAD, and what is not a file.
import test from 'ava';
import { fixture, sha256, type FixtureName } from './support/fixtures.js';
import { fixtureFile, form, json, rawRequest } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
const urls = new Map<FixtureName, string>();
test.before(async () => {
  stack = await startStack();
  const auth = await stack.auth(freshWorkspace());
  for (const name of [
    'notes.txt',
    'page.html',
    'drawing.svg',
    'image.png',
    'document.pdf',
    'empty.dat',
    'document.docx',
    'clip.mp4',
  ] as const) {
    const response = await fetch(`${stack.url}/v1/assets/upload`, {
      method: 'POST',
      headers: auth,
      body: form([['file', await fixtureFile(name)]]),
    });
    urls.set(name, (await json<{ url: string }>(response)).url);
  }
});
test.after.always(async () => stack?.stop());

const url = (name: FixtureName): string => urls.get(name)!;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SANDBOX = "sandbox; default-src 'none'";

test('a file comes with its type, length, ETag (quoted sha256), Last-Modified, ranges, immutable caching and nosniff', async (t) => {
  const file = await fixture('notes.txt');
  const response = await fetch(url('notes.txt'));
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/plain');
  t.is(response.headers.get('content-length'), String(file.bytes.length));
  t.is(response.headers.get('etag'), `"${file.sha256}"`);
  t.false(Number.isNaN(Date.parse(response.headers.get('last-modified') ?? '')));
  t.is(response.headers.get('accept-ranges'), 'bytes');
  t.is(response.headers.get('cache-control'), IMMUTABLE);
  t.is(response.headers.get('x-content-type-options'), 'nosniff');
  t.is(response.headers.get('content-disposition'), null, 'plain text is inert and may show inline');
  t.deepEqual(Buffer.from(await response.arrayBuffer()), file.bytes);
});

for (const name of ['page.html', 'drawing.svg', 'document.docx'] as const) {
  test(`${name} cannot run script in our origin: sandbox CSP and attachment`, async (t) => {
    const response = await fetch(url(name));
    t.is(response.status, 200);
    t.is(response.headers.get('content-security-policy'), SANDBOX);
    t.is(response.headers.get('content-disposition'), 'attachment');
    t.is(response.headers.get('x-content-type-options'), 'nosniff');
  });
}

test('inert types show inline; every type but PDF carries the sandbox policy', async (t) => {
  for (const name of ['image.png', 'clip.mp4', 'notes.txt'] as const) {
    const response = await fetch(url(name), { method: 'HEAD' });
    t.is(response.headers.get('content-disposition'), null, name);
    t.is(response.headers.get('content-security-policy'), SANDBOX, name);
  }
  const pdf = await fetch(url('document.pdf'), { method: 'HEAD' });
  t.is(pdf.headers.get('content-disposition'), null);
  t.is(pdf.headers.get('content-security-policy'), null, 'PDF viewers refuse sandboxed documents');
});

test('HEAD: the same headers as GET and no body', async (t) => {
  const file = await fixture('image.png');
  const head = await rawRequest(url('image.png'), { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers['content-length'], String(file.bytes.length));
  t.is(head.headers['content-type'], 'image/png');
  t.is(head.headers['etag'], `"${file.sha256}"`);
  t.is(head.body.length, 0);
});

test('a single range is 206 with Content-Range; open and suffix ranges; an end past the size is clamped', async (t) => {
  const file = await fixture('notes.txt');
  const size = file.bytes.length;
  const cases: [string, number, number][] = [
    ['bytes=0-9', 0, 9],
    ['bytes=5-', 5, size - 1],
    ['bytes=-7', size - 7, size - 1],
    [`bytes=10-${size + 500}`, 10, size - 1],
    ['bytes=-100000', 0, size - 1],
  ];
  for (const [range, start, end] of cases) {
    const response = await fetch(url('notes.txt'), { headers: { range } });
    t.is(response.status, 206, range);
    t.is(response.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
    t.is(response.headers.get('content-length'), String(end - start + 1), range);
    t.deepEqual(Buffer.from(await response.arrayBuffer()), file.bytes.subarray(start, end + 1), range);
  }
});

test('an unsatisfiable range is 416 with Content-Range: bytes */size and the error body', async (t) => {
  const size = (await fixture('notes.txt')).bytes.length;
  for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0', 'bytes=99999999999999999999-']) {
    const response = await fetch(url('notes.txt'), { headers: { range } });
    t.is(response.status, 416, range);
    t.is(response.headers.get('content-range'), `bytes */${size}`, range);
    t.is((await json(response))['code'], 'out_of_range');
  }
  const empty = await fetch(url('empty.dat'), { headers: { range: 'bytes=0-' } });
  t.is(empty.status, 416);
  t.is(empty.headers.get('content-range'), 'bytes */0');
});

test('several ranges, other units and malformed ranges are answered with the whole file', async (t) => {
  const file = await fixture('notes.txt');
  for (const range of ['bytes=0-1,4-5', 'bytes=0-1, 0-1, 0-1', 'items=0-1', 'bytes=5-2', 'bytes=abc', 'bytes=']) {
    const response = await fetch(url('notes.txt'), { headers: { range } });
    t.is(response.status, 200, range);
    t.is(response.headers.get('content-range'), null, range);
    t.deepEqual(Buffer.from(await response.arrayBuffer()), file.bytes, range);
  }
});

test('If-None-Match and If-Modified-Since give 304; a different ETag or an older date gives the file', async (t) => {
  const first = await fetch(url('image.png'));
  const etag = first.headers.get('etag')!;
  const lastModified = first.headers.get('last-modified')!;
  await first.arrayBuffer();

  const conditions: Record<string, string>[] = [
    { 'if-none-match': etag },
    { 'if-none-match': `"other", W/${etag}` },
    { 'if-none-match': '*' },
    { 'if-modified-since': lastModified },
  ];
  for (const headers of conditions) {
    const response = await fetch(url('image.png'), { headers });
    t.is(response.status, 304, JSON.stringify(headers));
    t.is(response.headers.get('etag'), etag);
    t.is(response.headers.get('cache-control'), IMMUTABLE);
    t.is((await response.arrayBuffer()).byteLength, 0);
  }
  const head = await fetch(url('image.png'), { method: 'HEAD', headers: { 'if-none-match': etag } });
  t.is(head.status, 304);

  const changed = await fetch(url('image.png'), { headers: { 'if-none-match': '"not-it"' } });
  t.is(changed.status, 200);
  const older = await fetch(url('image.png'), {
    headers: { 'if-modified-since': new Date(Date.parse(lastModified) - 60_000).toUTCString() },
  });
  t.is(older.status, 200);
  const ignoredDate = await fetch(url('image.png'), { headers: { 'if-none-match': '"not-it"', 'if-modified-since': lastModified } });
  t.is(ignoredDate.status, 200, 'If-None-Match wins over If-Modified-Since');
});

test('If-Match and If-Unmodified-Since (RFC 9110 §13.1.1, §13.1.4): a file that does not match is 412 with the JSON error and its ETag', async (t) => {
  const file = await fixture('image.png');
  const etag = `"${file.sha256}"`;
  const first = await fetch(url('image.png'));
  const lastModified = first.headers.get('last-modified')!;
  await first.arrayBuffer();
  const before = new Date(Date.parse(lastModified) - 60_000).toUTCString();
  const after = new Date(Date.parse(lastModified) + 60_000).toUTCString();

  const failing: Record<string, string>[] = [
    { 'if-match': '"other"' },
    { 'if-match': `W/${etag}` },
    { 'if-unmodified-since': before },
    { 'if-match': '"other"', 'if-unmodified-since': after },
  ];
  for (const headers of failing) {
    for (const method of ['GET', 'HEAD']) {
      const response = await fetch(url('image.png'), { method, headers });
      t.is(response.status, 412, `${method} ${JSON.stringify(headers)}`);
      t.is(response.headers.get('etag'), etag);
      if (method === 'GET') t.is((await json(response))['code'], 'failed_precondition');
    }
  }
  const passing: Record<string, string>[] = [
    { 'if-match': etag },
    { 'if-match': `"other", ${etag}` },
    { 'if-match': '*' },
    { 'if-unmodified-since': lastModified },
    { 'if-unmodified-since': after },
    { 'if-unmodified-since': 'not a date' },
    { 'if-match': etag, 'if-unmodified-since': before },
  ];
  for (const headers of passing) {
    const response = await fetch(url('image.png'), { headers });
    t.is(response.status, 200, JSON.stringify(headers));
    t.is(sha256(new Uint8Array(await response.arrayBuffer())), file.sha256);
  }
  const ranged = await fetch(url('image.png'), { headers: { 'if-match': etag, range: 'bytes=0-3' } });
  t.is(ranged.status, 206, 'a matching If-Match keeps the range');
  await ranged.arrayBuffer();
});

test('a suffix range on an empty file is satisfiable (RFC 9110 §14.1.1): 200 with the empty file', async (t) => {
  const response = await fetch(url('empty.dat'), { headers: { range: 'bytes=-5' } });
  t.is(response.status, 200);
  t.is(response.headers.get('content-length'), '0');
  t.is(response.headers.get('content-range'), null);
  t.is((await response.arrayBuffer()).byteLength, 0);
  const zero = await fetch(url('empty.dat'), { headers: { range: 'bytes=-0' } });
  t.is(zero.status, 416, 'a zero-length suffix is never satisfiable');
  await zero.arrayBuffer();
});

test('If-Range: the current ETag keeps the range, another one gets the whole file', async (t) => {
  const file = await fixture('notes.txt');
  const etag = `"${file.sha256}"`;
  const kept = await fetch(url('notes.txt'), { headers: { range: 'bytes=0-3', 'if-range': etag } });
  t.is(kept.status, 206);
  t.is(Buffer.from(await kept.arrayBuffer()).toString(), file.bytes.subarray(0, 4).toString());
  const stale = await fetch(url('notes.txt'), { headers: { range: 'bytes=0-3', 'if-range': '"old"' } });
  t.is(stale.status, 200);
  t.is(sha256(new Uint8Array(await stale.arrayBuffer())), file.sha256);
});

test('unknown, malformed and traversal paths under the files path are JSON 404s', async (t) => {
  const real = new URL(url('notes.txt'));
  const [, , assetId, fileName] = real.pathname.split('/');
  const base = `${stack.url}/files`;
  const paths = [
    `${base}/as_00000000000000000000000000/bl_00000000000000000000000000.txt`,
    `${base}/${assetId}/bl_00000000000000000000000000.txt`,
    `${base}/${assetId}/${fileName!.replace('.txt', '.png')}`,
    `${base}/as_00000000000000000000000000/${fileName}`,
    `${base}/nope/nope`,
    `${base}/${assetId}/..%2F..%2Fauth-secret`,
    `${base}/%2e%2e/auth-secret`,
    `${base}/.hidden/x`,
  ];
  for (const path of paths) {
    const response = await fetch(path);
    t.is(response.status, 404, path);
    t.is((await json(response))['code'], 'not_found', path);
  }
  for (const path of [`${base}/${assetId}`, `${base}/${assetId}/${fileName}/extra`, base]) {
    const response = await fetch(path);
    t.is(response.status, 404, path);
  }
  // Sent literally, without a client's dot-segment normalisation.
  for (const path of ['/files/../auth-secret', `/files/${assetId}/../../auth-secret`, `/files/${assetId}/..`, '/files/./x/y']) {
    const response = await rawRequest(stack.url, { method: 'GET', path });
    t.is(response.status, 404, path);
    t.is(response.json()['code'], 'not_found', path);
  }
});

test('files take only GET and HEAD', async (t) => {
  const response = await fetch(url('notes.txt'), { method: 'POST', body: 'x' });
  t.is(response.status, 405);
  t.is(response.headers.get('allow'), 'GET, HEAD');
  t.is((await json(response))['code'], 'unimplemented');
});

test('files are public links: no token needed, and a token changes nothing', async (t) => {
  const withToken = await fetch(url('notes.txt'), { headers: { authorization: 'Bearer garbage' } });
  t.is(withToken.status, 200);
  t.is(withToken.headers.get('cache-control'), IMMUTABLE);
});
