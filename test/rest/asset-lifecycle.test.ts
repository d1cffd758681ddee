// Listing and deleting assets over REST: cursor pages newest first that
// neither skip nor repeat while assets come and go, filters, tokens bound to
// their listing, deletes that end the id and its urls at once, batch deletes
// with an answer per id.
import test from 'ava';
import { fixtureFile, form } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0' });
});
test.after.always(async () => stack?.stop());

interface AssetJson {
  id: string;
  url: string;
  type: string;
  label: string;
}
interface Page {
  assets: AssetJson[];
  nextPageToken: string;
}

async function upload(headers: Record<string, string>, name: 'image.png' | 'notes.txt', label = ''): Promise<AssetJson> {
  const parts: [string, string | Awaited<ReturnType<typeof fixtureFile>>][] = [['file', await fixtureFile(name)]];
  if (label) parts.push(['label', label]);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form(parts) });
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return (await response.json()) as AssetJson;
}

async function list(
  headers: Record<string, string>,
  query: string,
): Promise<{ status: number; body: Page & { code?: string; details?: { field?: string }[] } }> {
  const response = await fetch(`${stack.url}/v1/assets?${query}`, { headers });
  return { status: response.status, body: (await response.json()) as Page };
}

async function listAll(
  headers: Record<string, string>,
  query: string,
  between: (page: number) => Promise<void> = async () => {},
): Promise<string[]> {
  const seen: string[] = [];
  let token = '';
  for (let page = 0; page < 100; page++) {
    const { status, body } = await list(headers, `${query}&pageToken=${encodeURIComponent(token)}`);
    if (status !== 200) throw new Error(`list: ${status} ${JSON.stringify(body)}`);
    seen.push(...body.assets.map((asset) => asset.id));
    token = body.nextPageToken;
    if (token === '') return seen;
    await between(page);
  }
  throw new Error('never reached the last page');
}

test('pages are newest first, every asset once; type and label filter; the last page says so', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  t.deepEqual((await list(headers, '')).body, { assets: [], nextPageToken: '' });
  const uploaded: AssetJson[] = [];
  for (const [name, label] of [
    ['image.png', 'a'],
    ['notes.txt', 'b'],
    ['image.png', 'b'],
    ['notes.txt', 'a'],
    ['image.png', 'a'],
  ] as const)
    uploaded.push(await upload(headers, name, label));
  const newestFirst = uploaded.map((asset) => asset.id).reverse();
  t.deepEqual(await listAll(headers, 'pageSize=2'), newestFirst);
  t.deepEqual(await listAll(headers, 'pageSize=1000'), newestFirst);
  const first = await list(headers, 'pageSize=2');
  t.is(first.body.assets.length, 2);
  t.true(first.body.nextPageToken !== '');
  t.deepEqual(first.body.assets[0], uploaded[4], 'the same asset view as GET /v1/assets/{id}');
  const images = uploaded
    .filter((asset) => asset.type === 'image/png')
    .map((asset) => asset.id)
    .reverse();
  t.deepEqual(await listAll(headers, 'pageSize=2&type=image/*'), images);
  t.deepEqual(await listAll(headers, 'type=image%2Fpng'), images);
  t.deepEqual(
    await listAll(headers, 'pageSize=1&label=a'),
    uploaded
      .filter((asset) => asset.label === 'a')
      .map((asset) => asset.id)
      .reverse(),
  );
  t.deepEqual(await listAll(headers, 'type=text/plain&label=b'), [uploaded[1]!.id]);
  t.deepEqual(await listAll(headers, 'label=none'), []);
});

test('paging while assets are uploaded and deleted sees every asset that existed throughout exactly once', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const before: AssetJson[] = [];
  for (let i = 0; i < 12; i++) before.push(await upload(headers, 'notes.txt'));
  // Deleted while the listing runs: some already seen, some not yet.
  const doomed = new Set([before[1]!.id, before[10]!.id, before[6]!.id]);
  const seen = await listAll(headers, 'pageSize=3', async (page) => {
    await upload(headers, 'notes.txt');
    const id = [...doomed][page];
    if (id !== undefined) t.is((await fetch(`${stack.url}/v1/assets/${id}`, { method: 'DELETE', headers })).status, 204);
  });
  const throughout = before.filter((asset) => !doomed.has(asset.id)).map((asset) => asset.id);
  for (const id of throughout) t.is(seen.filter((other) => other === id).length, 1, id);
  t.is(new Set(seen).size, seen.length, 'nothing repeated');
});

test('bad page sizes, filters and tokens are 400 naming the field; a token only works for its own listing', async (t) => {
  const workspace = freshWorkspace();
  const headers = await stack.auth(workspace);
  for (let i = 0; i < 3; i++) await upload(headers, 'notes.txt', 'x');
  const field = async (query: string) => {
    const { status, body } = await list(headers, query);
    t.is(status, 400, query);
    t.is(body.code, 'invalid_argument', query);
    return body.details?.[0]?.field;
  };
  for (const size of ['1001', '-1', 'abc', '1.5']) t.is(await field(`pageSize=${size}`), 'pageSize', size);
  t.is(await field('pageSize=1&pageSize=2'), 'pageSize');
  for (const type of ['image', '*/*', 'image/png/x', 'ima ge/png']) t.is(await field(`type=${encodeURIComponent(type)}`), 'type', type);
  t.is(await field('pageToken=not-a-token'), 'pageToken');
  t.is(await field(`pageToken=${Buffer.from('1.as_zzz.x').toString('base64url')}`), 'pageToken');
  const { body } = await list(headers, 'pageSize=1&label=x');
  t.is(await field(`pageSize=1&pageToken=${body.nextPageToken}`), 'pageToken', 'another filter');
  const other = await stack.auth(freshWorkspace());
  const foreign = await list(other, `pageSize=1&label=x&pageToken=${body.nextPageToken}`);
  t.is(foreign.status, 400, 'another workspace');
  t.is((await list(headers, 'pageSize=1&label=x&pageToken=' + body.nextPageToken)).status, 200, 'its own listing');
  t.is((await fetch(`${stack.url}/v1/assets`)).status, 401);
  t.is((await list(await stack.auth(workspace, { scope: 'assets:write' }), '')).status, 403);
});

test('delete ends the id and every url the asset had at once; again is 404', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const asset = await upload(headers, 'image.png');
  t.is((await fetch(asset.url)).status, 200);
  const deleted = await fetch(`${stack.url}/v1/assets/${asset.id}`, { method: 'DELETE', headers });
  t.is(deleted.status, 204);
  t.is(await deleted.text(), '');
  t.is((await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers })).status, 404);
  t.is((await fetch(asset.url)).status, 404);
  t.is((await fetch(`${stack.url}/v1/assets/${asset.id}`, { method: 'DELETE', headers })).status, 404);
  t.is((await fetch(`${stack.url}/v1/assets/not-an-id`, { method: 'DELETE', headers })).status, 400);
  const other = await upload(headers, 'notes.txt');
  t.is(
    (await fetch(`${stack.url}/v1/assets/${other.id}`, { method: 'DELETE', headers: await stack.auth(freshWorkspace()) })).status,
    404,
    'another workspace cannot',
  );
  t.is(
    (await fetch(`${stack.url}/v1/assets/${other.id}`, { method: 'DELETE', headers: await stack.auth('x', { scope: 'assets:read' }) }))
      .status,
    403,
  );
  t.is((await fetch(other.url)).status, 200, 'still there');
});

test('batch delete answers per id, in order; an empty or oversized batch is 400', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const headers = { ...auth, 'content-type': 'application/json' };
  const [a, b] = [await upload(auth, 'notes.txt'), await upload(auth, 'image.png')];
  const unknown = 'as_00000000000000000000000000';
  const response = await fetch(`${stack.url}/v1/assets:batchDelete`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ids: [a.id, unknown, 'nonsense', b.id, a.id] }),
  });
  t.is(response.status, 200);
  t.deepEqual(await response.json(), {
    results: [
      { id: a.id, code: 'ok' },
      { id: unknown, code: 'not_found' },
      { id: 'nonsense', code: 'invalid_argument' },
      { id: b.id, code: 'ok' },
      { id: a.id, code: 'not_found' },
    ],
  });
  t.is((await fetch(b.url)).status, 404);
  for (const body of [{ ids: [] }, { ids: Array.from({ length: 1001 }, () => unknown) }, { ids: 'x' }, {}, { ids: [a.id], extra: 1 }]) {
    const refused = await fetch(`${stack.url}/v1/assets:batchDelete`, { method: 'POST', headers, body: JSON.stringify(body) });
    t.is(refused.status, 400, JSON.stringify(body).slice(0, 60));
  }
});

test("usage counts the workspace's assets, their bytes and its routes, and follows deletes (into the trash)", async (t) => {
  const workspace = freshWorkspace();
  const headers = await stack.auth(workspace);
  const usage = async () =>
    (await (await fetch(`${stack.url}/v1/workspace/usage`, { headers })).json()) as { assets: number; bytes: number; routes: number };
  const none = { versionBytes: 0, trashBytes: 0 };
  t.deepEqual(await usage(), { assets: 0, bytes: 0, ...none, routes: 0 });
  const png = await fixtureFile('image.png');
  const notes = await fixtureFile('notes.txt');
  const a = await upload(headers, 'image.png');
  await upload(headers, 'notes.txt');
  const route = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/u', handler: 'h' }),
  });
  t.is(route.status, 201);
  t.deepEqual(await usage(), { assets: 2, bytes: png.bytes.length + notes.bytes.length, ...none, routes: 1 });
  await fetch(`${stack.url}/v1/assets/${a.id}`, { method: 'DELETE', headers });
  t.deepEqual(await usage(), { assets: 1, bytes: notes.bytes.length, versionBytes: 0, trashBytes: png.bytes.length, routes: 1 });
  t.deepEqual(
    await (await fetch(`${stack.url}/v1/workspace/usage`, { headers: await stack.auth(freshWorkspace()) })).json(),
    { assets: 0, bytes: 0, ...none, routes: 0 },
    'another workspace sees its own',
  );
  t.is((await fetch(`${stack.url}/v1/workspace/usage`, { headers: await stack.auth(workspace, { scope: 'routes:read' }) })).status, 403);
});
