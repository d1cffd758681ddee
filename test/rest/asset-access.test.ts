// Private assets, signed links and workspace policy over REST, on SQLite +
// disk and on MySQL + S3 (s3rver): PATCH, signed urls that expire exactly,
// revocation, key rotation, and uploads refused by sniffed type (415) or size
// (413, while the bytes stream) with nothing stored.
import test from 'ava';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageConfig } from '@switchyard/service';
import { blobKeys } from '../grpc/support/storage-targets.js';
import { DEPLOYMENTS, mysqlS3Deployment, type Deployment } from '../hardening/support/deployments.js';
import { mysqlReachable, stillReachable, testNeedingMysql } from '../support/mysql.js';
import { fixtureFile, form, type FormFile } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

// The S3 client takes its credentials from the usual variables.
process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';

interface AssetJson {
  id: string;
  url: string;
  type: string;
  label: string;
  visibility: string;
  sha256: string;
}

interface Backend {
  readonly deployment: Deployment;
  readonly stack: Stack;
}

const KEY_A = `a:${'A'.repeat(40)}`;
const KEY_B = `b:${'B'.repeat(40)}`;

/** The deployment's storage, served by a stack: CDN_URL left to the stack so file urls are fetchable. */
async function stackOn(deployment: Deployment, env: Record<string, string> = {}): Promise<Stack> {
  const { CDN_URL: _cdn, ...storageEnv } = deployment.env;
  return startStack({ ...storageEnv, URL_SIGNING_KEYS: KEY_A, ...env });
}

const mysqlTest = await testNeedingMysql();

for (const [name, deploy, needsMysql] of DEPLOYMENTS) {
  const register = needsMysql ? mysqlTest : test;
  let backend: Backend | undefined;
  test.before(async () => {
    // With MySQL unreachable its tests are skipped, but the SQLite tests still run these hooks.
    if (needsMysql && !(await mysqlReachable())) return;
    const deployment = stillReachable(await deploy());
    backend = { deployment, stack: await stackOn(deployment) };
  });
  test.after.always(async () => {
    await backend?.stack.stop();
    await backend?.deployment.cleanup();
  });

  /** `serial` for tests that compare the whole blob store before and after: nothing else may write meanwhile. */
  const each = (title: string, body: (t: import('ava').ExecutionContext, backend: Backend) => Promise<void>, { serial = false } = {}) =>
    (serial ? register.serial : register)(`${name} › ${title}`, async (t) => {
      if (!backend) return void t.fail(`${name} was not deployed`);
      await body(t, backend);
    });

  each(
    'PATCH changes label and visibility; bad bodies and ids are 400, unknown and foreign ids 404, a read-only token 403',
    async (t, { stack }) => {
      const workspace = freshWorkspace();
      const headers = await stack.auth(workspace);
      const asset = await upload(stack, headers, await fixtureFile('image.png'), { label: 'before' });
      t.is(asset.visibility, 'public', 'the default policy makes uploads public');
      const patched = await patch(stack, headers, asset.id, { label: 'after ✓', visibility: 'private' });
      t.is(patched.status, 200);
      t.like(patched.body, { id: asset.id, label: 'after ✓', visibility: 'private', url: asset.url, sha256: asset.sha256 });
      t.like(await getJson(stack, headers, `/v1/assets/${asset.id}`), { label: 'after ✓', visibility: 'private' });
      t.like(
        (await patch(stack, headers, asset.id, {})).body,
        { label: 'after ✓', visibility: 'private' },
        'an empty patch changes nothing',
      );
      t.like((await patch(stack, headers, asset.id, { label: '' })).body, { label: '', visibility: 'private' }, 'an empty label clears it');

      for (const [body, field] of [
        [{ visibility: 'secret' }, 'visibility'],
        [{ label: 7 }, 'label'],
        [{ label: 'x'.repeat(201) }, 'label'],
        [{ label: 'a\u0000b' }, 'label'],
        [{ owner: 'me' }, undefined],
        [[], undefined],
      ] as const) {
        const refused = await patch(stack, headers, asset.id, body);
        t.is(refused.status, 400, JSON.stringify(body));
        t.is(refused.body['code'], 'invalid_argument');
        if (field) t.true(JSON.stringify(refused.body['details']).includes(field), JSON.stringify(refused.body));
      }
      t.is((await patch(stack, headers, 'as_nope', { label: 'x' })).status, 400, 'a malformed id');
      t.is((await patch(stack, headers, 'as_01jzzzzzzzzzzzzzzzzzzzzzzz', { label: 'x' })).status, 404, 'an unknown id');
      t.is((await patch(stack, await stack.auth(freshWorkspace()), asset.id, { label: 'x' })).status, 404, "another workspace's asset");
      t.is(
        (await patch(stack, await stack.auth(workspace, { scope: 'assets:read' }), asset.id, { label: 'x' })).status,
        403,
        'without assets:write',
      );
    },
  );

  each(
    'a private file is 403 without a signature, 200 with one, 403 once revoked or tampered with, 404 after replace and delete',
    async (t, { stack }) => {
      const headers = await stack.auth(freshWorkspace());
      const png = await fixtureFile('image.png');
      const asset = await upload(stack, headers, png, { visibility: 'private' });
      t.is(asset.visibility, 'private');
      const plain = await fetch(asset.url);
      t.is(plain.status, 403);
      t.like(await plain.json(), { code: 'permission_denied' });

      const signed = await signUrl(stack, headers, asset.id, 3600);
      t.true(signed.url.startsWith(`${asset.url}?`), 'the file url plus a signature');
      t.regex(signed.url, /[?&]expires=\d+&kid=a&sig=[\w-]+$/);
      t.is(Date.parse(signed.expiresAt) % 1000, 0, 'whole seconds, as the url carries them');
      const served = await fetch(signed.url);
      t.is(served.status, 200);
      t.deepEqual(new Uint8Array(await served.arrayBuffer()), png.bytes);
      t.is(served.headers.get('cache-control'), 'private, no-cache', 'no shared cache keeps a private file');
      const head = await fetch(signed.url, { method: 'HEAD' });
      t.is(head.status, 200);
      const ranged = await fetch(signed.url, { headers: { range: 'bytes=0-3' } });
      t.is(ranged.status, 206);
      t.is(
        (await fetch(signed.url, { headers: { 'if-none-match': `"${asset.sha256}"` } })).status,
        304,
        'revalidation answers 304 while the link is valid',
      );

      const query = new URL(signed.url).searchParams;
      const tampered = (name: string, value: string) => {
        const copy = new URL(signed.url);
        copy.searchParams.set(name, value);
        return copy.href;
      };
      t.is((await fetch(tampered('expires', String(Number(query.get('expires')) + 3600)))).status, 403, 'a later expiry');
      const sig = query.get('sig')!;
      t.is((await fetch(tampered('sig', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`))).status, 403, 'another signature');
      t.is((await fetch(tampered('kid', 'b'))).status, 403, 'an unknown key id');
      t.is((await fetch(`${signed.url}&w=64`)).status, 403, 'an added parameter is not signed');
      t.is((await fetch(`${signed.url}&sig=${query.get('sig')}`)).status, 403, 'a repeated signature');
      const other = await upload(stack, headers, png, { visibility: 'private' });
      t.is((await fetch(`${other.url}?${query}`)).status, 403, "another file's signature");

      const revoked = await fetch(`${stack.url}/v1/assets/${asset.id}/signed-urls`, { method: 'DELETE', headers });
      t.is(revoked.status, 204);
      t.is((await fetch(signed.url)).status, 403, 'revoked at once');
      const fresh = await signUrl(stack, headers, asset.id, 3600);
      t.is((await fetch(fresh.url)).status, 200, 'links signed after a revocation work');

      await patch(stack, headers, asset.id, { visibility: 'public' });
      t.is((await fetch(asset.url)).status, 200, 'made public: the plain url works');
      t.is((await fetch(fresh.url)).status, 200, 'and so does a signed one');
      await patch(stack, headers, asset.id, { visibility: 'private' });

      const replaced = await replace(stack, headers, asset.id, await fixtureFile('notes.txt'));
      t.is(replaced.visibility, 'private', 'a replace keeps the visibility');
      t.is((await fetch(fresh.url)).status, 404, "a replace ends the old file's links: its url is gone");
      t.is((await fetch((await signUrl(stack, headers, asset.id, 60)).url)).status, 200, 'the new file signs');
      const last = await signUrl(stack, headers, asset.id, 60);
      t.is((await fetch(`${stack.url}/v1/assets/${asset.id}`, { method: 'DELETE', headers })).status, 204);
      t.is((await fetch(last.url)).status, 404, 'a delete ends them too');
    },
  );

  each('a signed url is refused from its expiresAt on, with no grace', async (t, { stack }) => {
    const headers = await stack.auth(freshWorkspace());
    const asset = await upload(stack, headers, await fixtureFile('notes.txt'), { visibility: 'private' });
    const signed = await signUrl(stack, headers, asset.id, 1);
    const expiresAt = Date.parse(signed.expiresAt);
    // Inside its second it works (unless this machine stalled past it).
    if (Date.now() < expiresAt - 200) t.is((await fetch(signed.url)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 5));
    const refused = await fetch(signed.url);
    t.is(refused.status, 403);
    t.regex(((await refused.json()) as { message: string }).message, /expired/);
  });

  each('CreateSignedUrl refuses bad lifetimes, unknown ids and tokens without assets:read', async (t, { stack }) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    const asset = await upload(stack, headers, await fixtureFile('notes.txt'));
    for (const body of [
      { expiresIn: 0 },
      { expiresIn: 604_801 },
      { expiresIn: 1.5 },
      { expiresIn: '60' },
      {},
      { expiresIn: 60, extra: 1 },
      { expiresIn: 60, transform: { w: 'big' } },
    ]) {
      const response = await post(stack, headers, `/v1/assets/${asset.id}/signed-url`, body);
      t.is(response.status, 400, JSON.stringify(body));
    }
    t.is(
      (await post(stack, headers, `/v1/assets/${asset.id}/signed-url`, { expiresIn: 604_800 })).status,
      200,
      'seven days is the longest',
    );
    t.is((await post(stack, headers, '/v1/assets/as_01jzzzzzzzzzzzzzzzzzzzzzzz/signed-url', { expiresIn: 60 })).status, 404);
    t.is(
      (await post(stack, await stack.auth(freshWorkspace()), `/v1/assets/${asset.id}/signed-url`, { expiresIn: 60 })).status,
      404,
      'another workspace',
    );
    t.is(
      (await post(stack, await stack.auth(workspace, { scope: 'assets:write' }), `/v1/assets/${asset.id}/signed-url`, { expiresIn: 60 }))
        .status,
      403,
    );
    t.is(
      (
        await fetch(`${stack.url}/v1/assets/${asset.id}/signed-urls`, {
          method: 'DELETE',
          headers: await stack.auth(workspace, { scope: 'assets:read' }),
        })
      ).status,
      403,
      'revoking needs assets:write',
    );
    t.is((await fetch(`${stack.url}/v1/assets/as_01jzzzzzzzzzzzzzzzzzzzzzzz/signed-urls`, { method: 'DELETE', headers })).status, 404);
    t.is((await fetch(asset.url)).status, 200, 'a public file needs no signature');
  });

  each('the workspace policy: defaults, set and read with workspace:admin, bad policies 400', async (t, { stack }) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    t.deepEqual(await getJson(stack, headers, '/v1/workspace/policy'), {
      allowedTypes: [],
      maxUploadBytes: 104_857_600,
      defaultVisibility: 'public',
      stripImageMetadata: false,
      keepVersions: 5,
      retentionDays: 7,
    });
    const set = await put(stack, headers, {
      allowedTypes: ['image/*', 'application/pdf', 'image/*'],
      maxUploadBytes: 2048,
      defaultVisibility: 'private',
    });
    t.is(set.status, 200);
    t.deepEqual(
      set.body,
      {
        allowedTypes: ['image/*', 'application/pdf'],
        maxUploadBytes: 2048,
        defaultVisibility: 'private',
        stripImageMetadata: false,
        keepVersions: 5,
        retentionDays: 7,
      },
      'duplicates dropped',
    );
    t.deepEqual(await getJson(stack, headers, '/v1/workspace/policy'), set.body);
    t.deepEqual(
      await getJson(stack, await stack.auth(freshWorkspace()), '/v1/workspace/policy'),
      {
        allowedTypes: [],
        maxUploadBytes: 104_857_600,
        defaultVisibility: 'public',
        stripImageMetadata: false,
        keepVersions: 5,
        retentionDays: 7,
      },
      'per workspace',
    );
    for (const body of [
      { allowedTypes: ['IMAGE/PNG'] },
      { allowedTypes: ['png'] },
      { allowedTypes: 'image/png' },
      { maxUploadBytes: 104_857_601 },
      { maxUploadBytes: -1 },
      { maxUploadBytes: 1.5 },
      { defaultVisibility: 'hidden' },
      { keepVersions: 101 },
      { retentionDays: -1 },
      { retentionDays: 'week' },
      { quota: 1 },
    ]) {
      const refused = await put(stack, headers, body);
      t.is(refused.status, 400, JSON.stringify(body));
      t.is(refused.body['code'], 'invalid_argument');
    }
    t.deepEqual(await getJson(stack, headers, '/v1/workspace/policy'), set.body, 'refusals change nothing');
    t.deepEqual(
      (await put(stack, headers, {})).body,
      {
        allowedTypes: [],
        maxUploadBytes: 104_857_600,
        defaultVisibility: 'public',
        stripImageMetadata: false,
        keepVersions: 5,
        retentionDays: 7,
      },
      'absent fields take their defaults',
    );
    const notAdmin = await stack.auth(workspace, { scope: 'routes:read routes:write assets:read assets:write' });
    t.is((await fetch(`${stack.url}/v1/workspace/policy`, { headers: notAdmin })).status, 403);
    t.is((await put(stack, notAdmin, {})).status, 403);
  });

  each(
    'a GIF sent as image/jpeg to a JPEG-only workspace is 415 and leaves nothing stored; a file over the limit is 413',
    async (t, { stack, deployment }) => {
      const headers = await stack.auth(freshWorkspace());
      t.is(
        (await put(stack, headers, { allowedTypes: ['image/jpeg'], maxUploadBytes: 64 * 1024, defaultVisibility: 'private' })).status,
        200,
      );
      const before = await storedState(deployment);
      const gif = await fixtureFile('anim.gif');
      const disguised: FormFile = { bytes: gif.bytes, filename: 'photo.jpg', type: 'image/jpeg' };
      const refused = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', disguised]]) });
      t.is(refused.status, 415);
      const error = (await refused.json()) as { code: string; message: string; details: { field: string }[] };
      t.is(error.code, 'invalid_argument');
      t.regex(error.message, /image\/gif/);
      t.deepEqual(
        await getJson(stack, headers, '/v1/workspace/usage'),
        { assets: 0, bytes: 0, versionBytes: 0, trashBytes: 0, routes: 0 },
        'no record',
      );
      t.deepEqual(await storedState(deployment), before, 'no blob, no temp file');

      const jpeg = await upload(stack, headers, await fixtureFile('photo.jpg'));
      t.is(jpeg.type, 'image/jpeg');
      t.is(jpeg.visibility, 'private', "the policy's default visibility");
      t.is(
        (await upload(stack, headers, await fixtureFile('photo.jpg'), { visibility: 'public' })).visibility,
        'public',
        'an explicit visibility wins',
      );

      const replacedWithGif = await fetch(`${stack.url}/v1/assets/${jpeg.id}/replace`, {
        method: 'POST',
        headers,
        body: form([['file', disguised]]),
      });
      t.is(replacedWithGif.status, 415, 'replace is held to the policy too');
      t.like(await getJson(stack, headers, `/v1/assets/${jpeg.id}`), { sha256: jpeg.sha256, type: 'image/jpeg' }, 'the old file stays');

      const big: FormFile = { bytes: new Uint8Array(64 * 1024 + 1), filename: 'big.bin' };
      const afterJpegs = await storedState(deployment);
      const tooLarge = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', big]]) });
      t.is(tooLarge.status, 413);
      t.like(await tooLarge.json(), { code: 'resource_exhausted' });
      t.deepEqual(await storedState(deployment), afterJpegs, 'nothing stored');
      t.is(((await getJson(stack, headers, '/v1/workspace/usage')) as { assets: number }).assets, 2);
    },
    { serial: true },
  );

  each(
    'a 1 GiB upload to a workspace with a 1 MiB limit is refused with 413 after little more than 1 MiB was read',
    async (t, { stack }) => {
      const headers = await stack.auth(freshWorkspace());
      t.is((await put(stack, headers, { maxUploadBytes: 1024 * 1024 })).status, 200);
      const { status, bytesSent } = await streamUpload(stack, headers.authorization!, 1024 ** 3);
      t.is(status, 413);
      t.log(`bytes the client got to send before the 413 and the close: ${(bytesSent / 1024 / 1024).toFixed(1)} MiB of 1024 MiB`);
      t.true(bytesSent < 64 * 1024 * 1024, `sent ${bytesSent} bytes`);
    },
  );
}

mysqlTest('mysql-s3 › a link signed before a key rotation works until it expires; dropping the old key ends it', async (t) => {
  const deployment = stillReachable(await mysqlS3Deployment());
  try {
    const first = await stackOn(deployment, { URL_SIGNING_KEYS: KEY_A });
    const headers = await first.auth(freshWorkspace());
    const asset = await upload(first, headers, await fixtureFile('notes.txt'), { visibility: 'private' });
    const before = await signUrl(first, headers, asset.id, 3600);
    const path = new URL(before.url).pathname + new URL(before.url).search;
    await first.stop();

    const rotated = await stackOn(deployment, { URL_SIGNING_KEYS: `${KEY_B},${KEY_A}` });
    t.is((await fetch(`${rotated.cdnUrl.replace(/\/files$/, '')}${path}`)).status, 200, 'the old key still verifies');
    const after = await signUrl(rotated, headers, asset.id, 3600);
    t.regex(after.url, /&kid=b&/, 'the first key signs');
    t.is((await fetch(after.url)).status, 200);
    await rotated.stop();

    const retired = await stackOn(deployment, { URL_SIGNING_KEYS: KEY_B });
    t.is((await fetch(`${retired.cdnUrl.replace(/\/files$/, '')}${path}`)).status, 403, 'without its key, the old link is refused');
    t.is((await fetch(`${retired.cdnUrl.replace(/\/files$/, '')}${new URL(after.url).pathname}${new URL(after.url).search}`)).status, 200);
    await retired.stop();
  } finally {
    await deployment.cleanup();
  }
});

async function upload(
  stack: Stack,
  headers: Record<string, string>,
  file: FormFile,
  fields: { label?: string; visibility?: string } = {},
): Promise<AssetJson> {
  const parts: [string, string | FormFile][] = [['file', file]];
  for (const [name, value] of Object.entries(fields)) parts.push([name, value]);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form(parts) });
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return (await response.json()) as AssetJson;
}

async function replace(stack: Stack, headers: Record<string, string>, id: string, file: FormFile): Promise<AssetJson> {
  const response = await fetch(`${stack.url}/v1/assets/${id}/replace`, { method: 'POST', headers, body: form([['file', file]]) });
  if (response.status !== 200) throw new Error(`replace: ${response.status} ${await response.text()}`);
  return (await response.json()) as AssetJson;
}

async function sendJson(
  stack: Stack,
  method: string,
  headers: Record<string, string>,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const patch = (stack: Stack, headers: Record<string, string>, id: string, body: unknown) =>
  sendJson(stack, 'PATCH', headers, `/v1/assets/${id}`, body);
const post = (stack: Stack, headers: Record<string, string>, path: string, body: unknown) => sendJson(stack, 'POST', headers, path, body);
const put = (stack: Stack, headers: Record<string, string>, body: unknown) => sendJson(stack, 'PUT', headers, '/v1/workspace/policy', body);

async function signUrl(
  stack: Stack,
  headers: Record<string, string>,
  id: string,
  expiresIn: number,
): Promise<{ url: string; expiresAt: string }> {
  const response = await post(stack, headers, `/v1/assets/${id}/signed-url`, { expiresIn });
  if (response.status !== 200) throw new Error(`signed-url: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { url: string; expiresAt: string };
}

async function getJson(stack: Stack, headers: Record<string, string>, path: string): Promise<unknown> {
  const response = await fetch(`${stack.url}${path}`, { headers });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Every blob key, and on disk every file under the blob root (temp files included). */
async function storedState(deployment: Deployment): Promise<{ keys: string[]; files: string[] }> {
  const storage: StorageConfig = deployment.storage;
  const files = storage.blobs.kind === 'disk' ? await listFiles(join(deployment.dataDir, 'files')) : [];
  return { keys: await blobKeys(storage), files };
}

async function listFiles(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * A multipart upload of `size` zero bytes over a raw socket, written as fast
 * as the server reads; stops at the response (or the close). Resolves with
 * the status and how many bytes the kernel took from us by then, an upper
 * bound of what the server read.
 */
function streamUpload(stack: Stack, authorization: string, size: number): Promise<{ status: number; bytesSent: number }> {
  const { hostname, port } = new URL(stack.url);
  const boundary = `b${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + size + tail.length;
  const request = `POST /v1/assets/upload HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${authorization}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${total}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      socket.destroy();
      resolve({ status, bytesSent: socket.bytesWritten });
    };
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (/\r\n\r\n/.test(answer)) finish();
    });
    socket.on('close', finish);
    socket.on('error', (error) => (answer ? finish() : reject(error)));
    const chunk = Buffer.alloc(256 * 1024);
    socket.write(request);
    socket.write(head);
    let left = size;
    const pump = () => {
      while (!done && left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
      if (!done && left === 0) socket.write(tail);
    };
    socket.once('connect', pump);
  });
}
