// Resumable uploads over tus 1.0 with the real tus-js-client, on SQLite + disk.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { fixture, noise, sha256 } from './support/fixtures.js';
import { json } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';
import { startCuttingProxy, switchingHttpStack, tusUpload } from './support/tus.js';

const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };

let stack: Stack;
test.before(async () => {
  stack = await startStack({ MAX_UPLOAD_BYTES: String(300 * MiB) });
});
test.after.always(async () => {
  await stack?.stop();
});

async function assetOf(workspace: string, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.url}/v1/assets/${id}`, { headers: await stack.auth(workspace) });
  return json(response);
}

async function create(workspace: string, headers: Record<string, string>, body?: Buffer): Promise<Response> {
  return fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      ...(await stack.auth(workspace)),
      ...(body ? { 'content-type': 'application/offset+octet-stream' } : {}),
      ...headers,
    },
    ...(body ? { body: new Uint8Array(body) } : {}),
  });
}

async function patch(
  workspace: string,
  location: string,
  offset: number,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(location, {
    method: 'PATCH',
    headers: {
      ...TUS,
      ...(await stack.auth(workspace)),
      'content-type': 'application/offset+octet-stream',
      'upload-offset': String(offset),
      ...headers,
    },
    body: new Uint8Array(body),
  });
}

async function head(workspace: string, location: string): Promise<Response> {
  return fetch(location, { method: 'HEAD', headers: { ...TUS, ...(await stack.auth(workspace)) } });
}

test.serial('a 200 MiB upload whose connection is cut three times resumes and yields an asset of the same sha256', async (t) => {
  const workspace = freshWorkspace();
  const file = randomBytes(200 * MiB);
  const proxy = await startCuttingProxy(stack.url, [30 * MiB, 90 * MiB, 160 * MiB]);
  try {
    const result = await tusUpload(file, {
      endpoint: `${proxy.url}/v1/uploads`,
      headers: await stack.auth(workspace),
      metadata: { filename: 'big.bin', label: 'resumed' },
    });
    t.is(proxy.cuts(), 3, 'the connection was cut three times');
    // Starting over after each cut would send 30 + 90 + 160 + 200 MiB; resuming loses only what was in flight.
    t.true(proxy.sent() < file.length * 1.25, `${proxy.sent()} bytes sent for a file of ${file.length}`);
    const asset = await assetOf(workspace, result.assetId);
    t.is(asset['sha256'], sha256(file));
    t.is(asset['size'], file.length);
    t.is(asset['label'], 'resumed');
    const after = await head(workspace, `${stack.url}${new URL(result.uploadUrl).pathname}`);
    t.is(after.headers.get('switchyard-asset-id'), result.assetId, 'a later HEAD names the asset');
  } finally {
    await proxy.close();
  }
});

test.serial('the same upload continues through a second gateway: every request after the first goes there, cut three times', async (t) => {
  const workspace = freshWorkspace();
  const file = randomBytes(200 * MiB);
  const listener = await listen('127.0.0.1', 0);
  const second: GatewayHandle = await startGateway(
    { ...loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), MAX_UPLOAD_BYTES: String(300 * MiB) }), cdnUrl: stack.cdnUrl },
    { serviceUrl: `http://${stack.service.address}`, listener, log: createGatewayLogger('error'), shutdownTimeoutMs: 2_000 },
  );
  const proxy = await startCuttingProxy(second.url, [20 * MiB, 70 * MiB, 150 * MiB]);
  try {
    const result = await tusUpload(file, {
      endpoint: `${stack.url}/v1/uploads`,
      headers: await stack.auth(workspace),
      httpStack: switchingHttpStack(stack.url, proxy.url),
    });
    t.is(proxy.cuts(), 3);
    t.true(proxy.sent() < file.length * 1.25, `${proxy.sent()} bytes sent for a file of ${file.length}`);
    t.true(result.uploadUrl.startsWith(stack.url), 'the upload was created at the first gateway');
    t.is((await assetOf(workspace, result.assetId))['sha256'], sha256(file));
  } finally {
    await proxy.close();
    await second.close();
  }
});

test.serial('parallelUploads: 4 partial uploads concatenate into one asset', async (t) => {
  const workspace = freshWorkspace();
  const file = randomBytes(24 * MiB + 12345);
  const result = await tusUpload(file, {
    endpoint: `${stack.url}/v1/uploads`,
    headers: await stack.auth(workspace),
    parallelUploads: 4,
    metadata: { label: 'parallel' },
  });
  const asset = await assetOf(workspace, result.assetId);
  t.is(asset['sha256'], sha256(file));
  t.is(asset['label'], 'parallel');
});

test('50 concurrent uploads each yield their own asset', async (t) => {
  const workspace = freshWorkspace();
  const auth = await stack.auth(workspace);
  const files = Array.from({ length: 50 }, (_, index) => noise(200_000 + index * 1000, index + 1));
  const results = await Promise.all(
    files.map((file) => tusUpload(file, { endpoint: `${stack.url}/v1/uploads`, headers: auth, chunkSize: 64 * 1024 })),
  );
  t.is(new Set(results.map((result) => result.assetId)).size, 50);
  const assets = await Promise.all(results.map((result) => assetOf(workspace, result.assetId)));
  t.deepEqual(
    assets.map((asset) => asset['sha256']),
    files.map((file) => sha256(file)),
  );
});

test('a wrong Upload-Checksum is 460 and keeps no byte; a right one is kept', async (t) => {
  const workspace = freshWorkspace();
  const file = noise(100_000);
  const created = await create(workspace, { 'upload-length': String(file.length) });
  t.is(created.status, 201);
  const location = created.headers.get('location')!;
  const first = file.subarray(0, 60_000);
  const wrong = await patch(workspace, location, 0, first, {
    'upload-checksum': `sha1 ${createHash('sha1').update('other').digest('base64')}`,
  });
  t.is(wrong.status, 460);
  t.is(wrong.headers.get('tus-resumable'), '1.0.0');
  t.is((await head(workspace, location)).headers.get('upload-offset'), '0');
  const right = await patch(workspace, location, 0, first, {
    'upload-checksum': `sha256 ${createHash('sha256').update(first).digest('base64')}`,
  });
  t.is(right.status, 204);
  t.is(right.headers.get('upload-offset'), '60000');
  const bad = await patch(workspace, location, 60_000, file.subarray(60_000), { 'upload-checksum': 'md5 AAAA' });
  t.is(bad.status, 400);
  const done = await patch(workspace, location, 60_000, file.subarray(60_000));
  t.is(done.status, 204);
  t.is((await assetOf(workspace, done.headers.get('switchyard-asset-id')!))['sha256'], sha256(file));
});

test('termination removes the upload: later requests for it are 404', async (t) => {
  const workspace = freshWorkspace();
  const created = await create(workspace, { 'upload-length': '1000' }, noise(400));
  t.is(created.status, 201);
  t.is(created.headers.get('upload-offset'), '400', 'creation-with-upload stored the first bytes');
  const location = created.headers.get('location')!;
  const deleted = await fetch(location, { method: 'DELETE', headers: { ...TUS, ...(await stack.auth(workspace)) } });
  t.is(deleted.status, 204);
  t.is((await head(workspace, location)).status, 404);
  t.is((await patch(workspace, location, 400, noise(600))).status, 404);
});

test('a replace through the `replace` metadata keeps the asset id and takes the new bytes', async (t) => {
  const workspace = freshWorkspace();
  const png = await fixture('image.png');
  const jpeg = await fixture('photo.jpg');
  const original = await tusUpload(png.bytes, { endpoint: `${stack.url}/v1/uploads`, headers: await stack.auth(workspace) });
  const replaced = await tusUpload(jpeg.bytes, {
    endpoint: `${stack.url}/v1/uploads`,
    headers: await stack.auth(workspace),
    metadata: { replace: original.assetId },
  });
  t.is(replaced.assetId, original.assetId);
  const asset = await assetOf(workspace, original.assetId);
  t.is(asset['type'], 'image/jpeg');
  t.is(asset['sha256'], jpeg.sha256);
  const unknown = await create(workspace, {
    'upload-length': '10',
    'upload-metadata': `replace ${Buffer.from('as_00000000000000000000000000').toString('base64')}`,
  });
  t.is(unknown.status, 404);
});

test('a type the workspace policy refuses is refused at finish (415) and nothing of the upload is kept', async (t) => {
  const workspace = freshWorkspace();
  const admin = await stack.auth(workspace);
  const policy = await fetch(`${stack.url}/v1/workspace/policy`, {
    method: 'PUT',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ allowedTypes: ['image/*'] }),
  });
  t.is(policy.status, 200);
  const text = Buffer.from('plain words, no image here\n'.repeat(2000));
  const created = await create(workspace, { 'upload-length': String(text.length) });
  const location = created.headers.get('location')!;
  t.is((await patch(workspace, location, 0, text.subarray(0, 10_000))).status, 204);
  const refused = await patch(workspace, location, 10_000, text.subarray(10_000));
  t.is(refused.status, 415);
  t.is((await json(refused))['code'], 'invalid_argument');
  t.is((await head(workspace, location)).status, 404);
  const list = await json<{ assets: unknown[] }>(await fetch(`${stack.url}/v1/assets`, { headers: admin }));
  t.deepEqual(list.assets, []);
});

test('a deferred length is declared by a later PATCH', async (t) => {
  const workspace = freshWorkspace();
  const file = noise(5000);
  const created = await create(workspace, { 'upload-defer-length': '1' });
  const location = created.headers.get('location')!;
  t.is((await head(workspace, location)).headers.get('upload-defer-length'), '1');
  t.is((await patch(workspace, location, 0, file.subarray(0, 3000))).status, 204);
  const done = await patch(workspace, location, 3000, file.subarray(3000), { 'upload-length': String(file.length) });
  t.is(done.status, 204);
  t.is((await assetOf(workspace, done.headers.get('switchyard-asset-id')!))['size'], file.length);
});

test('protocol refusals: a stale offset is 409, a missing Tus-Resumable 412, a wrong content type 415, too large 413, no token 401, a read-only token 403', async (t) => {
  const workspace = freshWorkspace();
  const created = await create(workspace, { 'upload-length': '100' });
  const location = created.headers.get('location')!;
  t.is((await patch(workspace, location, 5, noise(10))).status, 409);
  const noVersion = await fetch(location, { method: 'HEAD', headers: await stack.auth(workspace) });
  t.is(noVersion.status, 412);
  t.is(noVersion.headers.get('tus-version'), '1.0.0');
  t.is((await patch(workspace, location, 0, noise(10), { 'content-type': 'application/octet-stream' })).status, 415);
  t.is((await create(workspace, { 'upload-length': String(301 * MiB) })).status, 413);
  t.is((await patch(workspace, location, 0, noise(101))).status, 413, 'bytes past Upload-Length');
  t.is((await fetch(`${stack.url}/v1/uploads`, { method: 'POST', headers: { ...TUS, 'upload-length': '1' } })).status, 401);
  const reader = await stack.auth(workspace, { scope: 'assets:read' });
  t.is((await fetch(`${stack.url}/v1/uploads`, { method: 'POST', headers: { ...TUS, ...reader, 'upload-length': '1' } })).status, 403);
  t.is((await head(freshWorkspace(), location)).status, 404, 'another workspace cannot see the upload');
  t.is((await create(workspace, { 'upload-length': '1', 'upload-metadata': 'label !!!' })).status, 400);
  t.is((await create(workspace, {})).status, 400, 'neither Upload-Length nor Upload-Defer-Length');
});

test('discovery: OPTIONS names the version, extensions, maximum and checksum algorithms, and CORS exposes the tus headers', async (t) => {
  const options = await fetch(`${stack.url}/v1/uploads`, { method: 'OPTIONS' });
  t.is(options.status, 204);
  t.is(options.headers.get('tus-version'), '1.0.0');
  t.is(
    options.headers.get('tus-extension'),
    'creation,creation-with-upload,creation-defer-length,termination,expiration,checksum,concatenation',
  );
  t.is(options.headers.get('tus-max-size'), String(300 * MiB));
  t.is(options.headers.get('tus-checksum-algorithm'), 'sha1,sha256');
  const preflight = await fetch(`${stack.url}/v1/uploads/up_x`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'upload-offset,tus-resumable',
    },
  });
  t.is(preflight.status, 204);
  t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /PATCH/);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /upload-offset/);
  const workspace = freshWorkspace();
  const created = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...TUS, ...(await stack.auth(workspace)), origin: 'https://app.example', 'upload-length': '3' },
  });
  t.regex(
    created.headers.get('access-control-expose-headers') ?? '',
    /upload-offset.*switchyard-asset-id|switchyard-asset-id.*upload-offset/,
  );
  t.truthy(created.headers.get('upload-expires'));
  t.true(
    new Date(created.headers.get('upload-expires')!).getTime() > Date.now() + 23 * 3600_000,
    'expires a day after the last append by default',
  );
});

test('Location follows X-Forwarded-Proto and -Host only when TRUST_PROXY says the gateway is behind a proxy', async (t) => {
  const workspace = freshWorkspace();
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'uploads.example.com', 'upload-length': '5' };
  const untrusted = await create(workspace, forwarded);
  t.true(untrusted.headers.get('location')!.startsWith(`${stack.url}/v1/uploads/up_`));
  const proxied = await startStack({ TRUST_PROXY: 'true' });
  try {
    const response = await fetch(`${proxied.url}/v1/uploads`, {
      method: 'POST',
      headers: { ...TUS, ...(await proxied.auth(workspace)), ...forwarded },
    });
    t.regex(response.headers.get('location')!, /^https:\/\/uploads\.example\.com\/v1\/uploads\/up_[0-9a-z]{26}$/);
  } finally {
    await proxied.stop();
  }
});

test('unfinished uploads expire after UPLOAD_EXPIRY_SECONDS', async (t) => {
  const short = await startStack({ UPLOAD_EXPIRY_SECONDS: '1' });
  try {
    const workspace = freshWorkspace();
    const headers = { ...TUS, ...(await short.auth(workspace)) };
    const created = await fetch(`${short.url}/v1/uploads`, { method: 'POST', headers: { ...headers, 'upload-length': '100' } });
    const location = created.headers.get('location')!;
    const expires = new Date(created.headers.get('upload-expires')!).getTime();
    t.true(Math.abs(expires - (Date.now() + 1_000)) < 3_000, 'Upload-Expires says a second from now');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires + 2_000 - Date.now())));
    t.is((await fetch(location, { method: 'HEAD', headers })).status, 404);
    const late = await fetch(location, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: new Uint8Array(noise(100)),
    });
    t.is(late.status, 404);
  } finally {
    await short.stop();
  }
});

test.serial('metrics: open resumable uploads, and appends counted as uploads with their bytes', async (t) => {
  const workspace = freshWorkspace();
  const scrape = async (): Promise<string> => stack.metrics.metrics();
  const value = (text: string, series: string): number =>
    Number(new RegExp(`^${series.replace(/[{}"=]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const before = await scrape();
  const created = await create(workspace, { 'upload-length': '3000' });
  const location = created.headers.get('location')!;
  t.is((await patch(workspace, location, 0, noise(1000))).status, 204);
  const during = await scrape();
  t.is(value(during, 'switchyard_resumable_uploads_open'), value(before, 'switchyard_resumable_uploads_open') + 1);
  t.is((await patch(workspace, location, 1000, noise(2000, 3))).status, 204);
  const after = await scrape();
  t.is(value(after, 'switchyard_resumable_uploads_open'), value(before, 'switchyard_resumable_uploads_open'));
  const finished = 'switchyard_uploads_finished_total{grpc_method="AppendUpload"}';
  t.is(value(after, finished), value(before, finished) + 2, 'each append that stored its bytes');
  const bytes = 'switchyard_upload_bytes_received_total{grpc_method="AppendUpload"}';
  t.is(value(after, bytes), value(before, bytes) + 3000);
});
