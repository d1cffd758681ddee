// The REST calls the console makes that no other split suite makes, with the
// gateway reaching its service over real gRPC, as a split deployment does.
// The console's browser tests run once, on the all-in-one stack
// (test/console/): the console sees only HTTP, so what they check of it does
// not depend on the channel; what running them again on a split deployment
// checked of the deployment is checked here, at the HTTP level.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mintToken } from '../rest/support/tokens.js';
import { fixtureFile, form, json } from '../rest/support/http.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack({}, { channel: 'grpc' });
});
test.after.always(() => stack?.stop());

test('the gateway reaches its service over gRPC', (t) => {
  const listening = stack.logLines
    .map((line) => JSON.parse(line) as { msg?: string; service?: string })
    .find((entry) => entry.msg === 'gateway listening');
  t.is(listening?.service, `http://${stack.service.address}`);
});

interface Asset {
  readonly id: string;
  readonly url: string;
  readonly size: number;
  readonly sha256: string;
}

async function call(workspace: string, method: string, path: string, body?: unknown, claims?: Parameters<Stack['auth']>[1]) {
  const headers = await stack.auth(workspace, claims);
  return fetch(`${stack.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

async function upload(workspace: string, name: string, bytes: Uint8Array, fields: [string, string][] = []): Promise<Asset> {
  const file = { bytes: Buffer.from(bytes), filename: name, type: 'application/octet-stream' };
  const response = await fetch(`${stack.url}/v1/assets/upload`, {
    method: 'POST',
    headers: await stack.auth(workspace),
    body: form([...fields, ['file', file]]),
  });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return json<Asset>(response);
}

/** The events of a Server-Sent Events response, in the order they arrive. */
async function* sseEvents(response: Response): AsyncGenerator<{ event: string; data: Record<string, unknown> }, void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined && event !== 'heartbeat')
        yield { event, data: JSON.parse(data) as Record<string, unknown> };
    }
  }
}

test('the route watch relays the snapshot, then each change made through REST, in order', async (t) => {
  const workspace = freshWorkspace('watch');
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const watch = await fetch(`${stack.url}/v1/routing:watch`, {
    headers: { ...(await stack.auth(workspace)), accept: 'text/event-stream' },
    signal: abort.signal,
  });
  t.is(watch.status, 200);
  const events = sseEvents(watch);
  const next = async () => (await events.next()).value;
  t.like(await next(), { event: 'reset' });
  t.like(await next(), { event: 'synced', data: { revision: 0 } });

  const created = await call(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/health', handler: 'health.check' });
  t.is(created.status, 201);
  const { id } = await json<{ id: string }>(created);
  t.like(await next(), { event: 'upsert', data: { revision: 1, route: { id, path: '/health', handler: 'health.check' } } });
  t.is((await call(workspace, 'PATCH', `/v1/routing/${id}`, { handler: 'health.deep' })).status, 200);
  t.like(await next(), { event: 'upsert', data: { revision: 2, route: { id, handler: 'health.deep' } } });
  t.is((await call(workspace, 'DELETE', `/v1/routing/${id}`)).status, 204);
  t.like(await next(), { event: 'delete', data: { revision: 3, id } });
});

test('usage counts assets, bytes and routes; the policy is saved and read back; a value over the server limit is 400', async (t) => {
  const workspace = freshWorkspace('workspace');
  await upload(workspace, 'a.txt', new Uint8Array(1536).fill(97));
  await upload(workspace, 'b.txt', new Uint8Array(512).fill(98));
  t.is((await call(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/ping', handler: 'ping' })).status, 201);
  t.deepEqual(await json(await call(workspace, 'GET', '/v1/workspace/usage')), {
    assets: 2,
    bytes: 2048,
    versionBytes: 0,
    trashBytes: 0,
    routes: 1,
  });

  const policy = { allowedTypes: ['image/*', 'application/pdf'], maxUploadBytes: 5 * 1024 * 1024, defaultVisibility: 'private' };
  const saved = await call(workspace, 'PUT', '/v1/workspace/policy', policy);
  t.is(saved.status, 200);
  t.like(await json(saved), policy);
  t.like(await json(await call(workspace, 'GET', '/v1/workspace/policy')), policy);
  // More than the server's MAX_UPLOAD_BYTES (100 MiB by default).
  const refused = await call(workspace, 'PUT', '/v1/workspace/policy', { ...policy, maxUploadBytes: 500 * 1024 * 1024 });
  t.is(refused.status, 400);
  t.is((await json(refused))['code'], 'invalid_argument');
  t.like(await json(await call(workspace, 'GET', '/v1/workspace/policy')), policy, 'the refusal changed nothing');
  const notAdmin = await call(workspace, 'GET', '/v1/workspace/policy', undefined, { workspace, scope: 'assets:read assets:write' });
  t.is(notAdmin.status, 403);
});

test('a private image: plain url 403, a signed url with a transform 200, every signed url 403 once revoked', async (t) => {
  const workspace = freshWorkspace('signed');
  const photo = await fixtureFile('image.png');
  const asset = await upload(workspace, 'photo.png', photo.bytes, [['visibility', 'private']]);
  t.is((await fetch(asset.url)).status, 403);
  const signing = await call(workspace, 'POST', `/v1/assets/${asset.id}/signed-url`, { expiresIn: 300, transform: { w: 16, h: 16 } });
  t.is(signing.status, 200);
  const { url } = await json<{ url: string }>(signing);
  t.regex(url, /[?&]w=16&h=16.*&sig=/);
  const thumbnail = await fetch(url);
  t.is(thumbnail.status, 200);
  t.regex(thumbnail.headers.get('content-type') ?? '', /^image\//);
  t.is((await call(workspace, 'DELETE', `/v1/assets/${asset.id}/signed-urls`)).status, 204);
  t.is((await fetch(url)).status, 403, 'a revoked link is refused');
});

test('batch delete answers per id; the listing pages through the rest newest first, each once', async (t) => {
  const workspace = freshWorkspace('batch');
  const created: Asset[] = [];
  for (let n = 0; n < 12; n++) created.push(await upload(workspace, `batch-${n}.txt`, new TextEncoder().encode(`file ${n}\n`)));
  const doomed = created.slice(2, 6).map((asset) => asset.id);
  const deleted = await call(workspace, 'POST', '/v1/assets:batchDelete', { ids: doomed });
  t.is(deleted.status, 200);
  t.deepEqual(await json(deleted), { results: doomed.map((id) => ({ id, code: 'ok' })) });

  const listed: string[] = [];
  let pageToken = '';
  do {
    const page = await json<{ assets: Asset[]; nextPageToken: string }>(
      await call(workspace, 'GET', `/v1/assets?pageSize=3&pageToken=${encodeURIComponent(pageToken)}`),
    );
    listed.push(...page.assets.map((asset) => asset.id));
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  const kept = created.filter((asset) => !doomed.includes(asset.id)).map((asset) => asset.id);
  t.deepEqual(listed, kept.reverse());
});

test('versions and trash as the console calls them: list and restore a version, the usage split, the retention saved, the trash listed, restored and purged', async (t) => {
  const workspace = freshWorkspace('versions');
  const first = new Uint8Array(1536).fill(97);
  const asset = await upload(workspace, 'v1.txt', first);
  const replaced = await fetch(`${stack.url}/v1/assets/${asset.id}/replace`, {
    method: 'POST',
    headers: await stack.auth(workspace),
    body: form([['file', { bytes: Buffer.from(new Uint8Array(512).fill(98)), filename: 'v2.txt', type: 'application/octet-stream' }]]),
  });
  t.is(replaced.status, 200);
  const { versions } = await json<{ versions: { id: string; sha256: string; name: string }[] }>(
    await call(workspace, 'GET', `/v1/assets/${asset.id}/versions`),
  );
  t.deepEqual(
    versions.map((version) => [version.name, version.sha256]),
    [['v1.txt', asset.sha256]],
  );
  const trashed = await upload(workspace, 'gone.txt', new Uint8Array(1024).fill(99));
  t.is((await call(workspace, 'DELETE', `/v1/assets/${trashed.id}`)).status, 204);
  t.like(await json(await call(workspace, 'GET', '/v1/workspace/usage')), { assets: 1, bytes: 512, versionBytes: 1536, trashBytes: 1024 });

  const restored = await call(workspace, 'POST', `/v1/assets/${asset.id}/versions/${versions[0]!.id}:restore`);
  t.is(restored.status, 200);
  t.is((await json<Asset>(restored)).sha256, asset.sha256);

  const retention = { keepVersions: 2, retentionDays: 30, stripImageMetadata: true };
  t.is((await call(workspace, 'PUT', '/v1/workspace/policy', retention)).status, 200);
  t.like(await json(await call(workspace, 'GET', '/v1/workspace/policy')), retention);

  const trash = await json<{ assets: { id: string; deletedBy: string; purgeAt: string }[] }>(
    await call(workspace, 'GET', '/v1/trash?pageSize=50'),
  );
  t.deepEqual(
    trash.assets.map((entry) => entry.id),
    [trashed.id],
  );
  t.is((await call(workspace, 'POST', `/v1/trash/${trashed.id}:restore`)).status, 200);
  t.is((await call(workspace, 'GET', `/v1/assets/${trashed.id}`)).status, 200, 'back with its id');
  t.is((await call(workspace, 'DELETE', `/v1/assets/${trashed.id}`)).status, 204);
  t.is((await call(workspace, 'DELETE', `/v1/trash/${trashed.id}`)).status, 204);
  t.deepEqual((await json<{ assets: unknown[] }>(await call(workspace, 'GET', '/v1/trash'))).assets, []);
  t.is((await call(workspace, 'POST', `/v1/trash/${trashed.id}:restore`)).status, 404, 'purged for good');
});

test('tus: an upload resumes from the offset HEAD reports; the policy refuses a file too large (413) and a type it does not allow (415)', async (t) => {
  const workspace = freshWorkspace('tus');
  const tus = { ...(await stack.auth(workspace)), 'tus-resumable': '1.0.0' };
  const patch = (location: string, offset: number, body: Buffer) =>
    fetch(location, {
      method: 'PATCH',
      headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
      body: new Uint8Array(body),
    });
  const create = (length: number) =>
    fetch(`${stack.url}/v1/uploads`, { method: 'POST', headers: { ...tus, 'upload-length': String(length) } });

  const file = randomBytes(3 * 1024 * 1024);
  const created = await create(file.length);
  t.is(created.status, 201);
  const location = new URL(created.headers.get('location')!, stack.url).href;
  t.is((await patch(location, 0, file.subarray(0, 1024 * 1024))).status, 204);
  const head = await fetch(location, { method: 'HEAD', headers: tus });
  t.is(head.headers.get('upload-offset'), String(1024 * 1024));
  const done = await patch(location, 1024 * 1024, file.subarray(1024 * 1024));
  t.is(done.status, 204);
  const asset = await json<Asset>(await call(workspace, 'GET', `/v1/assets/${done.headers.get('switchyard-asset-id')}`));
  t.like(asset, { size: file.length, sha256: createHash('sha256').update(file).digest('hex') });

  t.is((await call(workspace, 'PUT', '/v1/workspace/policy', { maxUploadBytes: 2048, allowedTypes: ['image/*'] })).status, 200);
  t.is((await create(8192)).status, 413);
  const text = Buffer.from('plain text pretending to be a picture\n');
  const fake = await create(text.length);
  t.is(fake.status, 201);
  t.is((await patch(new URL(fake.headers.get('location')!, stack.url).href, 0, text)).status, 415);
});

test("refused tokens are 401 with the server's reason: another key's signature, an expired token", async (t) => {
  const workspace = freshWorkspace('refused');
  const refusals: [string, RegExp][] = [
    [await mintToken('another secret entirely, 32 bytes!', { workspace }), /signature/],
    [await stack.token(workspace, { workspace, expiresIn: -10 }), /expired/],
  ];
  for (const [token, reason] of refusals) {
    const refused = await fetch(`${stack.url}/v1/workspace/usage`, { headers: { authorization: `Bearer ${token}` } });
    t.is(refused.status, 401);
    const body = await json(refused);
    t.is(body['code'], 'unauthenticated');
    t.regex(String(body['message']), reason);
  }
});
