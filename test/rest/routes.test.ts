// REST route records end to end: gateway → gRPC → SQLite.
import test from 'ava';
import { json, rawRequest } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';
import { mintToken, unsignedToken } from './support/tokens.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack({ JSON_BODY_LIMIT_BYTES: '2048' });
});
test.after.always(async () => stack?.stop());

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function post(workspace: string, body: unknown, claims = {}): Promise<Response> {
  return fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...(await stack.auth(workspace, claims)), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function errorOf(
  response: Response,
  status: number,
  code: string,
): Promise<{ code: string; message: string; details: { field?: string; reason: string }[] }> {
  const body = await json<{ code: string; message: string; details: { field?: string; reason: string }[] }>(response);
  if (response.status !== status || body.code !== code)
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(body)}`);
  return body;
}

test('create answers 201 with Location and exactly the spec fields; get returns the same route', async (t) => {
  const ws = freshWorkspace();
  const created = await post(ws, { method: 'get', path: '/users/:id', middleware: ['auth', 'rateLimit'], handler: 'getUser' });
  t.is(created.status, 201);
  t.regex(created.headers.get('content-type') ?? '', /^application\/json/);
  const route = await json(created);
  t.deepEqual(Object.keys(route).sort(), ['createdAt', 'handler', 'id', 'method', 'middleware', 'owner', 'path', 'revision', 'updatedAt']);
  t.regex(String(route['id']), /^rt_[0-9a-z]{26}$/);
  t.is(route['method'], 'GET', 'methods come out upper-case');
  t.is(route['path'], '/users/:id');
  t.deepEqual(route['middleware'], ['auth', 'rateLimit']);
  t.is(route['handler'], 'getUser');
  t.regex(String(route['createdAt']), ISO_UTC);
  t.is(created.headers.get('location'), `/v1/routing/${String(route['id'])}`);

  const fetched = await fetch(new URL(created.headers.get('location')!, stack.url), { headers: await stack.auth(ws) });
  t.is(fetched.status, 200);
  t.deepEqual(await json(fetched), route);
});

test('middleware is optional and defaults to an empty list', async (t) => {
  const response = await post(freshWorkspace(), { method: 'POST', path: '/orders', handler: 'createOrder' });
  t.is(response.status, 201);
  t.deepEqual((await json(response))['middleware'], []);
});

test('match finds the most specific route and its params', async (t) => {
  const ws = freshWorkspace();
  t.is((await post(ws, { method: 'GET', path: '/users/:id', handler: 'getUser' })).status, 201);
  const staticRoute = await json(await post(ws, { method: 'GET', path: '/users/me', handler: 'getMe' }));
  const auth = await stack.auth(ws);

  const byParam = await fetch(`${stack.url}/v1/routing:match?method=get&path=${encodeURIComponent('/users/42')}`, { headers: auth });
  t.is(byParam.status, 200);
  const match = await json<{ route: Record<string, unknown>; params: Record<string, string> }>(byParam);
  t.is(match.route['handler'], 'getUser');
  t.deepEqual(match.params, { id: '42' });

  const byStatic = await json<{ route: Record<string, unknown>; params: Record<string, string> }>(
    await fetch(`${stack.url}/v1/routing:match?method=GET&path=/users/me`, { headers: auth }),
  );
  t.deepEqual(byStatic.route, staticRoute);
  t.deepEqual(byStatic.params, {});

  await errorOf(await fetch(`${stack.url}/v1/routing:match?method=GET&path=/nothing/here`, { headers: auth }), 404, 'not_found');
  const missing = await errorOf(await fetch(`${stack.url}/v1/routing:match?method=GET`, { headers: auth }), 400, 'invalid_argument');
  t.is(missing.details[0]?.field, 'path');
  await errorOf(await fetch(`${stack.url}/v1/routing:match?method=GET&path=/a&path=/b`, { headers: auth }), 400, 'invalid_argument');
  await errorOf(await fetch(`${stack.url}/v1/routing:match?method=BREW&path=/a`, { headers: auth }), 400, 'invalid_argument');
});

test('a duplicate method and path shape is 409 already_exists', async (t) => {
  const ws = freshWorkspace();
  const first = await post(ws, { method: 'GET', path: '/items/:id', handler: 'a' });
  t.is(first.status, 201);
  const { id } = (await first.json()) as { id: string };
  const error = await errorOf(await post(ws, { method: 'get', path: '/items/:itemId', handler: 'b' }), 409, 'already_exists');
  t.is(error.message, `route ${id} (GET /items/:id) already has this method and path shape`, 'names the route in the way');
  t.is((await post(freshWorkspace(), { method: 'GET', path: '/items/:id', handler: 'a' })).status, 201, 'another workspace may have it');
});

test('bodies are validated strictly: unknown and assigned fields, wrong types, missing fields, all listed', async (t) => {
  const ws = freshWorkspace();
  const unknown = await errorOf(await post(ws, { method: 'GET', path: '/x', handler: 'h', middlewares: [] }), 400, 'invalid_argument');
  t.deepEqual(
    unknown.details.map((d) => d.field),
    ['middlewares'],
  );
  const assigned = await errorOf(await post(ws, { id: 'rt_x', method: 'GET', path: '/x', handler: 'h' }), 400, 'invalid_argument');
  t.deepEqual(
    assigned.details.map((d) => d.field),
    ['id'],
  );
  const several = await errorOf(await post(ws, { method: 7, middleware: 'auth', handler: ['h'] }), 400, 'invalid_argument');
  t.deepEqual(several.details.map((d) => d.field).sort(), ['handler', 'method', 'middleware', 'path']);
  const badItems = await errorOf(
    await post(ws, { method: 'GET', path: '/x', handler: 'h', middleware: ['ok', 3] }),
    400,
    'invalid_argument',
  );
  t.is(badItems.details[0]?.field, 'middleware');
});

test('the service judges the grammar: a bad method, path or handler is 400 naming the field', async (t) => {
  const ws = freshWorkspace();
  const method = await errorOf(await post(ws, { method: 'BREW', path: '/x', handler: 'h' }), 400, 'invalid_argument');
  t.is(method.details[0]?.field, 'method');
  const path = await errorOf(await post(ws, { method: 'GET', path: 'no-slash', handler: 'h' }), 400, 'invalid_argument');
  t.is(path.details[0]?.field, 'path');
  const handler = await errorOf(await post(ws, { method: 'GET', path: '/x', handler: 'not a name!' }), 400, 'invalid_argument');
  t.is(handler.details[0]?.field, 'handler');
});

test('bad JSON, other content types, non-objects and empty bodies are 400', async (t) => {
  const ws = freshWorkspace();
  const auth = await stack.auth(ws);
  t.is((await errorOf(await post(ws, '{"method": "GET",'), 400, 'invalid_argument')).details[0]?.field, 'body');
  await errorOf(await post(ws, '[1, 2]'), 400, 'invalid_argument');
  await errorOf(await post(ws, 'null'), 400, 'invalid_argument');
  await errorOf(await post(ws, ''), 400, 'invalid_argument');
  const form = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'method=GET',
  });
  t.is((await errorOf(form, 400, 'invalid_argument')).details[0]?.field, 'content-type');
  const latin1 = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json; charset=latin1' },
    body: '{}',
  });
  await errorOf(latin1, 400, 'invalid_argument');
  const notUtf8 = await rawRequest(`${stack.url}/v1/routing`, {
    headers: { ...auth, 'content-type': 'application/json' },
    body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
  });
  t.is(notUtf8.status, 400);
  t.is(notUtf8.json()['code'], 'invalid_argument');
});

test('a JSON body over JSON_BODY_LIMIT_BYTES is 413 resource_exhausted, declared or chunked', async (t) => {
  const ws = freshWorkspace();
  const big = JSON.stringify({ method: 'GET', path: '/x', handler: 'h', middleware: Array.from({ length: 400 }, (_, i) => `m${i}`) });
  await errorOf(await post(ws, big), 413, 'resource_exhausted');
  const chunked = await rawRequest(`${stack.url}/v1/routing`, {
    headers: { ...(await stack.auth(ws)), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    body: big,
  });
  t.is(chunked.status, 413);
  t.is(chunked.json()['code'], 'resource_exhausted');
});

test('get: a malformed id is 400, a well-formed unknown id 404', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const malformed = await errorOf(await fetch(`${stack.url}/v1/routing/not-an-id`, { headers: auth }), 400, 'invalid_argument');
  t.is(malformed.details[0]?.field, 'id');
  await errorOf(await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000`, { headers: auth }), 404, 'not_found');
  await errorOf(await fetch(`${stack.url}/v1/routing/%E0%A4%A`, { headers: auth }), 400, 'invalid_argument');
});

test("another workspace's route does not exist for the caller: 404 on get, no match", async (t) => {
  const owner = freshWorkspace();
  const route = await json(await post(owner, { method: 'GET', path: '/secret/:id', handler: 'h' }));
  const stranger = await stack.auth(freshWorkspace());
  await errorOf(await fetch(`${stack.url}/v1/routing/${String(route['id'])}`, { headers: stranger }), 404, 'not_found');
  await errorOf(await fetch(`${stack.url}/v1/routing:match?method=GET&path=/secret/1`, { headers: stranger }), 404, 'not_found');
  t.pass();
});

test('auth: missing, garbage, expired, unsigned and wrongly signed tokens are 401; a missing scope is 403', async (t) => {
  const ws = freshWorkspace();
  const body = JSON.stringify({ method: 'GET', path: '/a', handler: 'h' });
  const attempt = (headers: Record<string, string>) =>
    fetch(`${stack.url}/v1/routing`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  await errorOf(await attempt({}), 401, 'unauthenticated');
  await errorOf(await attempt({ authorization: 'Bearer garbage' }), 401, 'unauthenticated');
  await errorOf(await attempt({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthenticated');
  await errorOf(await attempt(await stack.auth(ws, { expiresIn: -60 })), 401, 'unauthenticated');
  await errorOf(await attempt({ authorization: `Bearer ${unsignedToken(ws)}` }), 401, 'unauthenticated');
  await errorOf(
    await attempt({ authorization: `Bearer ${await mintToken('another-secret-of-enough-length-123456', { workspace: ws })}` }),
    401,
    'unauthenticated',
  );

  const readOnly = await stack.auth(ws, { scope: 'routes:read' });
  await errorOf(await attempt(readOnly), 403, 'permission_denied');
  const writeOnly = await stack.auth(ws, { scope: 'routes:write' });
  const created = await json(await attempt(writeOnly));
  await errorOf(await fetch(`${stack.url}/v1/routing/${String(created['id'])}`, { headers: writeOnly }), 403, 'permission_denied');
  await errorOf(await fetch(`${stack.url}/v1/routing:match?method=GET&path=/a`, { headers: writeOnly }), 403, 'permission_denied');
  t.is((await fetch(`${stack.url}/v1/routing/${String(created['id'])}`, { headers: readOnly })).status, 200);
});

test('a token in the query string is ignored', async (t) => {
  const token = await stack.token(freshWorkspace());
  await errorOf(await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000?access_token=${token}`), 401, 'unauthenticated');
  t.pass();
});

test('the wrong method on a known path is 405 with Allow; an unknown path is a JSON 404', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const put = await fetch(`${stack.url}/v1/routing`, { method: 'PUT', headers: auth });
  await errorOf(put.clone(), 405, 'unimplemented');
  t.is(put.headers.get('allow'), 'POST, GET, HEAD');
  const post = await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000`, { method: 'POST', headers: auth });
  t.is(post.status, 405);
  t.is(post.headers.get('allow'), 'PATCH, DELETE, GET, HEAD');
  await errorOf(await fetch(`${stack.url}/v2/routing`, { headers: auth }), 404, 'not_found');
  await errorOf(await fetch(`${stack.url}/v1/routing/`, { headers: auth }), 404, 'not_found');
});

test('no token, secret or authorization header ever reaches the logs', async (t) => {
  const token = await stack.token(freshWorkspace());
  await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000`, { headers: { authorization: `Bearer ${token}` } });
  await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000?token=${token}`);
  const logs = stack.logLines.join('');
  t.true(logs.includes('"path":"/v1/routing/rt_00000000000000000000000000"'), 'requests are logged');
  t.false(logs.includes(token), 'the token is not');
  t.false(logs.includes(token.split('.')[2]!), 'not even its signature');
  t.false(logs.includes(stack.secret));
  t.false(/authorization/i.test(logs));
});
