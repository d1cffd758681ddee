// Cross-cutting HTTP behaviour: CORS, request ids, health, OpenAPI, and the Connect protocol beside REST.
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { AssetService, FileService, RouteService } from '@switchyard/proto';
import { fixture, sha256 } from './support/fixtures.js';
import { json } from './support/http.js';
import { freshWorkspace, startStack, testChannel, type Stack } from './support/stack.js';

let stack: Stack;
let restricted: Stack;
test.before(async () => {
  [stack, restricted] = await Promise.all([startStack(), startStack({ CORS_ORIGINS: 'https://app.example, http://localhost:5173' })]);
});
test.after.always(async () => Promise.all([stack?.stop(), restricted?.stop()]));

test('the gateway reaches the service over the channel under test: in-process as npm start, or gRPC as a split deployment', (t) => {
  const listening = stack.logLines
    .map((line) => JSON.parse(line) as { msg?: string; service?: string })
    .find((entry) => entry.msg === 'gateway listening');
  t.is(listening?.service, testChannel() === 'grpc' ? `http://${stack.service.address}` : 'in-process');
});

test('CORS default: any origin may call, responses expose x-request-id and Location', async (t) => {
  const response = await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000`, {
    headers: { origin: 'https://anywhere.example' },
  });
  t.is(response.status, 401);
  t.is(response.headers.get('access-control-allow-origin'), '*');
  t.is(response.headers.get('access-control-allow-credentials'), null, 'tokens travel in headers; credentials are never allowed');
  const exposed = response.headers.get('access-control-expose-headers') ?? '';
  for (const name of ['x-request-id', 'location', 'etag', 'content-range']) t.true(exposed.split(', ').includes(name), name);
});

test('CORS: a browser can read every header an error answer carries, the error details and retry hints included', async (t) => {
  const response = await fetch(`${stack.url}/switchyard.v1.RouteService/CreateRoute`, {
    method: 'POST',
    headers: {
      ...(await stack.auth(freshWorkspace())),
      origin: 'https://anywhere.example',
      'content-type': 'application/json',
      'connect-protocol-version': '1',
    },
    body: JSON.stringify({ method: 'GET', path: 'no-leading-slash', handler: 'x' }),
  });
  t.is(response.status, 400);
  await response.arrayBuffer();
  const exposed = new Set((response.headers.get('access-control-expose-headers') ?? '').split(', '));
  const carried = [...response.headers.keys()].filter((name) => name.startsWith('switchyard-') || name.startsWith('trailer-switchyard-'));
  t.true(carried.length > 0, 'the error carries its details in a header');
  for (const name of carried) t.true(exposed.has(name), `${name} is exposed`);
  for (const name of ['retry-after', 'switchyard-error-details', 'switchyard-retry-after-ms', 'grpc-status-details-bin'])
    t.true(exposed.has(name), name);
});

test('a preflight is answered 204 with the methods and headers browsers need', async (t) => {
  const response = await fetch(`${stack.url}/v1/assets/upload`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  t.is(response.status, 204);
  t.is(response.headers.get('access-control-allow-origin'), '*');
  t.regex(response.headers.get('access-control-allow-methods') ?? '', /POST/);
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(', ');
  for (const name of ['authorization', 'content-type', 'x-request-id', 'range', 'connect-protocol-version'])
    t.true(allowed.includes(name), name);
  t.is(response.headers.get('access-control-max-age'), '7200');
});

test('CORS_ORIGINS restricts: a listed origin is echoed with Vary: Origin, others get no allow headers', async (t) => {
  const listed = await fetch(`${restricted.url}/healthz`, { headers: { origin: 'http://localhost:5173' } });
  t.is(listed.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  t.regex(listed.headers.get('vary') ?? '', /Origin/);
  const other = await fetch(`${restricted.url}/healthz`, { headers: { origin: 'https://evil.example' } });
  t.is(other.status, 200, "CORS is the browser's to enforce; the answer itself does not change");
  t.is(other.headers.get('access-control-allow-origin'), null);
  const preflight = await fetch(`${restricted.url}/v1/routing`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), null);
  // @fastify/cors lists the methods to any origin; without Access-Control-Allow-Origin the browser refuses all the same.
  const good = await fetch(`${restricted.url}/v1/routing`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  t.is(good.headers.get('access-control-allow-origin'), 'https://app.example');
});

test('x-request-id: a sane one is echoed and reaches the service, others are replaced by a fresh id', async (t) => {
  const mine = `req-${Date.now()}.abc:1`;
  const echoed = await fetch(`${stack.url}/v1/assets/as_00000000000000000000000000`, {
    headers: { ...(await stack.auth(freshWorkspace())), 'x-request-id': mine },
  });
  t.is(echoed.status, 404);
  t.is(echoed.headers.get('x-request-id'), mine);
  t.true(
    stack.serviceLogLines.some((line) => line.includes(`"requestId":"${mine}"`) && line.includes('GetAsset')),
    'the service logged the call under the same id',
  );

  const generated = await fetch(`${stack.url}/healthz`);
  t.regex(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  for (const insane of ['has spaces', 'x'.repeat(129), 'semi;colon']) {
    const response = await fetch(`${stack.url}/healthz`, { headers: { 'x-request-id': insane } });
    t.not(response.headers.get('x-request-id'), insane);
    t.regex(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  }
});

test('GET /healthz is 200 SERVING while the service answers', async (t) => {
  const response = await fetch(`${stack.url}/healthz`);
  t.is(response.status, 200);
  t.deepEqual(await json(response), { status: 'SERVING' });
  t.is(response.headers.get('cache-control'), 'no-store');
});

test('GET /v1/openapi.json serves an OpenAPI 3.1 document of the real paths, without a token', async (t) => {
  const response = await fetch(`${stack.url}/v1/openapi.json`);
  t.is(response.status, 200);
  const document = await json<{ openapi: string; paths: Record<string, unknown> }>(response);
  t.is(document.openapi, '3.1.0');
  t.deepEqual(Object.keys(document.paths).sort(), [
    '/files/{assetId}/{fileName}',
    '/healthz',
    '/v1/assets',
    '/v1/assets/upload',
    '/v1/assets/{id}',
    '/v1/assets/{id}/history',
    '/v1/assets/{id}/replace',
    '/v1/assets/{id}/signed-url',
    '/v1/assets/{id}/signed-urls',
    '/v1/assets/{id}/versions',
    '/v1/assets/{id}/versions/{versionId}/content',
    '/v1/assets/{id}/versions/{versionId}:restore',
    '/v1/assets:batchDelete',
    '/v1/assets:watch',
    '/v1/caller',
    '/v1/keys',
    '/v1/keys/{id}',
    '/v1/keys/{id}:roll',
    '/v1/openapi.json',
    '/v1/routing',
    '/v1/routing/changes',
    '/v1/routing/{id}',
    '/v1/routing:apply',
    '/v1/routing:match',
    '/v1/routing:rollback',
    '/v1/routing:watch',
    '/v1/trash',
    '/v1/trash/{id}',
    '/v1/trash/{id}:restore',
    '/v1/webhooks',
    '/v1/webhooks/{id}',
    '/v1/webhooks/{id}/deliveries',
    '/v1/webhooks/{id}/deliveries/{deliveryId}:resend',
    '/v1/webhooks/{id}:recover',
    '/v1/webhooks/{id}:rotateSecret',
    '/v1/webhooks/{id}:test',
    '/v1/workspace/policy',
    '/v1/workspace/usage',
  ]);
});

test("the Connect protocol: the same RPCs beside REST, with the caller's token forwarded and the service's codes kept", async (t) => {
  const ws = freshWorkspace();
  const headers = await stack.auth(ws);
  const transport = createConnectTransport({ baseUrl: stack.url, httpVersion: '1.1' });
  const routes = createClient(RouteService, transport);
  const created = await routes.createRoute({ method: 'GET', path: '/connect/:id', handler: 'viaConnect' }, { headers });
  t.regex(created.id, /^rt_/);
  const viaRest = await json(await fetch(`${stack.url}/v1/routing/${created.id}`, { headers }));
  t.is(viaRest['handler'], 'viaConnect', 'one store behind both');
  const match = await routes.matchRoute({ method: 'GET', path: '/connect/7' }, { headers });
  t.deepEqual(match.params, { id: '7' });

  const noToken = await t.throwsAsync(routes.getRoute({ id: created.id }));
  t.is(ConnectError.from(noToken).code, Code.Unauthenticated);
  const stranger = await t.throwsAsync(routes.getRoute({ id: created.id }, { headers: await stack.auth(freshWorkspace()) }));
  t.is(ConnectError.from(stranger).code, Code.NotFound);
  const malformed = ConnectError.from(await t.throwsAsync(routes.getRoute({ id: 'nope' }, { headers })));
  t.is(malformed.code, Code.InvalidArgument);
  t.regex(malformed.rawMessage, /not a valid route id/);
  t.regex(malformed.metadata.get('switchyard-error-details') ?? '', /"field":"id"/);
});

test('the Connect protocol streams uploads in and files out', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const transport = createConnectTransport({ baseUrl: stack.url, httpVersion: '1.1' });
  const png = await fixture('image.png');
  async function* messages() {
    yield { payload: { case: 'metadata' as const, value: { label: 'connect', filename: 'image.png', declaredType: 'image/png' } } };
    yield { payload: { case: 'chunk' as const, value: png.bytes.subarray(0, 10) } };
    yield { payload: { case: 'chunk' as const, value: png.bytes.subarray(10) } };
  }
  const asset = await createClient(AssetService, transport).uploadAsset(messages(), { headers });
  t.is(asset.type, 'image/png');
  t.is(asset.sha256, png.sha256);
  t.is(asset.label, 'connect');

  const path = asset.url.slice(`${stack.cdnUrl}/`.length);
  const chunks: Uint8Array[] = [];
  let infoSize = -1n;
  for await (const message of createClient(FileService, transport).readFile({ path })) {
    if (message.payload.case === 'info') infoSize = message.payload.value.size;
    if (message.payload.case === 'chunk') chunks.push(message.payload.value);
  }
  t.is(infoSize, BigInt(png.bytes.length));
  t.is(sha256(Buffer.concat(chunks)), png.sha256);
  t.is((await fetch(`${stack.url}/switchyard.v1.NoSuchService/Nope`, { method: 'POST' })).status, 404);
});
