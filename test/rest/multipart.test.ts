// Broken, hostile and oversized multipart bodies, written byte by byte through node:http.
import test from 'ava';
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { join, relative, sep } from 'node:path';
import { noise } from './support/fixtures.js';
import { form, json, multipartBody, rawRequest, type RawResponse } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

const MAX = 64 * 1024;
let stack: Stack;
let auth: Record<string, string>;
test.before(async () => {
  stack = await startStack({ MAX_UPLOAD_BYTES: String(MAX) });
  auth = await stack.auth(freshWorkspace());
});
test.after.always(async () => stack?.stop());

const BOUNDARY = 'switchyard-test-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const txt = (body: string | Buffer = 'hello') => ({ name: 'file', filename: 'a.txt', type: 'text/plain', body });

function send(
  body: Buffer | string,
  headers: Record<string, string | number> = { 'content-type': MULTIPART },
  path = '/v1/assets/upload',
): Promise<RawResponse> {
  return rawRequest(`${stack.url}${path}`, { headers: { ...auth, ...headers }, body });
}

function refusal(
  t: { is(a: unknown, b: unknown, m?: string): void },
  response: RawResponse,
  status: number,
  code: string,
  field?: string,
): string {
  t.is(response.status, status, response.body.toString());
  const body = response.json<{ code: string; message: string; details: { field?: string }[] }>();
  t.is(body.code, code);
  if (field !== undefined) t.is(body.details[0]?.field, field);
  return body.message;
}

/**
 * Blobs in the disk store: a refused upload must leave none behind. Files
 * still being written sit in its `.tmp` folder (a cancelled write is removed
 * there after the gateway has answered), so they are not counted.
 */
async function storedFiles(): Promise<number> {
  const root = join(stack.dataDir, 'files');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && !relative(root, entry.parentPath).split(sep).includes('.tmp')).length;
}

test('a well-formed hand-made body is accepted (the baseline for everything below)', async (t) => {
  const response = await send(multipartBody(BOUNDARY, [{ name: 'label', body: 'x' }, txt('plain text here')]));
  t.is(response.status, 201);
  t.is(response.json()['label'], 'x');
});

test('no boundary parameter is 400 invalid_argument naming the content type', async (t) => {
  const message = refusal(
    t,
    await send(multipartBody(BOUNDARY, [txt()]), { 'content-type': 'multipart/form-data' }),
    400,
    'invalid_argument',
    'content-type',
  );
  t.regex(message, /boundary/i);
});

test('a content type other than multipart/form-data is 400', async (t) => {
  refusal(t, await send('{"file": "x"}', { 'content-type': 'application/json' }), 400, 'invalid_argument', 'content-type');
  refusal(t, await send('file=x', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_argument', 'content-type');
  refusal(t, await send('x', {}), 400, 'invalid_argument', 'content-type');
});

test.serial('refused uploads store nothing', async (t) => {
  const before = await storedFiles();
  const bodies = [
    multipartBody(BOUNDARY, [txt(noise(20_000).toString('latin1'))]).subarray(0, 10_000),
    multipartBody(BOUNDARY, [txt('one'), { ...txt('two'), filename: 'b.txt' }]),
    multipartBody(BOUNDARY, [{ ...txt(noise(MAX + 1)), filename: 'over.bin' }]),
    multipartBody(BOUNDARY, [txt('fine'), { name: 'colour', body: 'red' }]),
  ];
  for (const body of bodies) t.true((await send(body)).status >= 400);
  t.is(await storedFiles(), before);
  t.is((await send(multipartBody(BOUNDARY, [txt('stored')]))).status, 201);
  t.is(await storedFiles(), before + 1, 'the count can move');
});

test.serial('a client that goes away mid-upload leaves nothing behind, and the gateway carries on', async (t) => {
  const before = await storedFiles();
  const body = multipartBody(BOUNDARY, [{ ...txt(noise(MAX - 100)), filename: 'abandoned.bin' }]);
  await new Promise<void>((resolve) => {
    const req = request(`${stack.url}/v1/assets/upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': MULTIPART, 'content-length': body.length },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(body.subarray(0, body.length / 2), () => req.destroy());
  });
  t.is((await fetch(`${stack.url}/healthz`)).status, 200);
  t.is((await send(multipartBody(BOUNDARY, [txt('after the abandoned one')]))).status, 201);
  t.is(await storedFiles(), before + 1, 'only the upload that finished is stored');
});

test('a truncated body (no closing boundary) is 400', async (t) => {
  const whole = multipartBody(BOUNDARY, [txt(noise(20_000).toString('latin1'))]);
  const message = refusal(t, await send(whole.subarray(0, 10_000)), 400, 'invalid_argument', 'form');
  t.regex(message, /ended before the form was complete/);
  const unclosed = multipartBody(BOUNDARY, [txt('complete part, but no final boundary')], false);
  refusal(t, await send(unclosed), 400, 'invalid_argument', 'form');
});

test('two files are 400', async (t) => {
  const message = refusal(
    t,
    await send(multipartBody(BOUNDARY, [txt('one'), { ...txt('two'), filename: 'b.txt' }])),
    400,
    'invalid_argument',
    'file',
  );
  t.regex(message, /more than one file/);
});

test('no file part (nothing, only a label, or an empty form) is 400', async (t) => {
  refusal(t, await send(multipartBody(BOUNDARY, [{ name: 'label', body: 'lonely' }])), 400, 'invalid_argument', 'file');
  refusal(t, await send(`--${BOUNDARY}--\r\n`), 400, 'invalid_argument', 'file');
  refusal(t, await send(''), 400, 'invalid_argument');
});

test('the file under another name, a text field named file, or an unknown field is 400 naming it', async (t) => {
  refusal(t, await send(multipartBody(BOUNDARY, [{ ...txt(), name: 'upload' }])), 400, 'invalid_argument', 'upload');
  refusal(t, await send(multipartBody(BOUNDARY, [{ name: 'file', body: 'just text' }])), 400, 'invalid_argument', 'file');
  refusal(t, await send(multipartBody(BOUNDARY, [{ name: 'colour', body: 'red' }, txt()])), 400, 'invalid_argument', 'colour');
  refusal(t, await send(multipartBody(BOUNDARY, [txt(), { name: 'colour', body: 'red' }])), 400, 'invalid_argument', 'colour');
});

test('a field too long for any label is refused by the gateway', async (t) => {
  refusal(t, await send(multipartBody(BOUNDARY, [{ name: 'label', body: 'x'.repeat(5000) }, txt()])), 400, 'invalid_argument', 'label');
});

test('a part header line that is not a header is skipped (as @fastify/busboy does); the part is stored as delimited', async (t) => {
  const body = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nThis is not a header\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
  );
  const response = await send(body);
  t.is(response.status, 201, response.body.toString());
  t.is(response.json()['size'], 1);
});

test('a file of exactly MAX_UPLOAD_BYTES is accepted; one byte more is 413 resource_exhausted', async (t) => {
  const exact = await send(multipartBody(BOUNDARY, [{ ...txt(noise(MAX)), filename: 'max.bin' }]));
  t.is(exact.status, 201, exact.body.toString());
  t.is(exact.json()['size'], MAX);
  const over = await send(multipartBody(BOUNDARY, [{ ...txt(noise(MAX + 1)), filename: 'over.bin' }]));
  const message = refusal(t, over, 413, 'resource_exhausted', 'file');
  t.regex(message, new RegExp(`${MAX} bytes`));
});

test('an oversized body is refused from its Content-Length before it is read, and the connection still answers', async (t) => {
  // Declares far more than it sends: only an answer from the header can come back.
  const response = await send(multipartBody(BOUNDARY, [txt()]), { 'content-type': MULTIPART, 'content-length': String(50 * 1024 * 1024) });
  refusal(t, response, 413, 'resource_exhausted', 'file');
});

test('an oversized chunked body is cut off at the limit with 413', async (t) => {
  const body = multipartBody(BOUNDARY, [{ ...txt(noise(MAX * 4)), filename: 'big.bin' }]);
  const response = await send(body, { 'content-type': MULTIPART, 'transfer-encoding': 'chunked' });
  refusal(t, response, 413, 'resource_exhausted', 'file');
});

test('replace takes only a file: a label or a second file is 400, and the asset is unchanged', async (t) => {
  const created = (await send(multipartBody(BOUNDARY, [txt('original')]))).json<{ id: string; sha256: string }>();
  const path = `/v1/assets/${created.id}/replace`;
  refusal(
    t,
    await send(multipartBody(BOUNDARY, [{ name: 'label', body: 'x' }, txt('new')]), undefined, path),
    400,
    'invalid_argument',
    'label',
  );
  refusal(
    t,
    await send(multipartBody(BOUNDARY, [txt('new'), { name: 'label', body: 'x' }]), undefined, path),
    400,
    'invalid_argument',
    'label',
  );
  refusal(
    t,
    await send(multipartBody(BOUNDARY, [txt('new'), { ...txt('two'), filename: 'b.txt' }]), undefined, path),
    400,
    'invalid_argument',
    'file',
  );
  refusal(
    t,
    await send(multipartBody(BOUNDARY, [{ ...txt(noise(MAX + 1)), filename: 'big.bin' }]), undefined, path),
    413,
    'resource_exhausted',
    'file',
  );
  const now = await json<{ sha256: string }>(await fetch(`${stack.url}/v1/assets/${created.id}`, { headers: auth }));
  t.is(now.sha256, created.sha256, 'every refused replace left the asset as it was');
});

test('a refused upload does not poison the keep-alive connection', async (t) => {
  // fetch reuses connections; after refusals with unread bodies, later requests must still work.
  for (let i = 0; i < 3; i++) {
    const over = await fetch(`${stack.url}/v1/assets/upload`, {
      method: 'POST',
      headers: auth,
      body: form([['file', { bytes: new Uint8Array(noise(MAX + 10)), filename: 'x.bin' }]]),
    });
    t.is(over.status, 413);
    await over.arrayBuffer();
    const ok = await fetch(`${stack.url}/v1/assets/upload`, {
      method: 'POST',
      headers: auth,
      body: form([['file', { bytes: new Uint8Array(Buffer.from('fine')), filename: 'x.txt' }]]),
    });
    t.is(ok.status, 201);
    await ok.arrayBuffer();
  }
});
