// REST assets end to end with real multipart bodies of the fixture files: gateway → gRPC → SQLite + disk.
import test from 'ava';
import { FIXTURES, fixture, noise, sha256, type FixtureName } from './support/fixtures.js';
import { fixtureFile, form, json, type FormFile } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => stack?.stop());

type AssetJson = {
  id: string;
  type: string;
  size: number;
  url: string;
  uploadedAt: string;
  label: string;
  name: string;
  sha256: string;
  width?: number;
  height?: number;
};
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function upload(headers: Record<string, string>, parts: ReadonlyArray<readonly [string, string | FormFile]>): Promise<Response> {
  return fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form(parts) });
}

async function replace(headers: Record<string, string>, id: string, file: FormFile): Promise<Response> {
  return fetch(`${stack.url}/v1/assets/${id}/replace`, { method: 'POST', headers, body: form([['file', file]]) });
}

async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<{ message: string; details: { field?: string; reason: string }[] }> {
  const body = await json<{ code: string; message: string; details: { field?: string; reason: string }[] }>(response);
  if (response.status !== status || body.code !== code)
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(body)}`);
  return body;
}

for (const name of Object.keys(FIXTURES) as FixtureName[]) {
  const expected = FIXTURES[name];
  test(`upload ${name}: 201 + Location, ${expected.type}, the url serves the same bytes`, async (t) => {
    const ws = freshWorkspace();
    const auth = await stack.auth(ws);
    const file = await fixture(name);
    // The declared type is a lie on purpose: the service sniffs the bytes.
    const response = await upload(auth, [['file', { bytes: new Uint8Array(file.bytes), filename: name, type: 'application/x-lie' }]]);
    t.is(response.status, 201);
    const asset = await json<AssetJson>(response);
    t.is(response.headers.get('location'), `/v1/assets/${asset.id}`);
    const keys = [
      ...new Set([
        'id',
        'label',
        'name',
        'sha256',
        'size',
        'type',
        'uploadedAt',
        'url',
        'visibility',
        ...(expected.image ? ['height', 'width'] : []),
        ...expected.facts,
      ]),
    ].sort();
    t.deepEqual(Object.keys(asset).sort(), keys);
    t.regex(asset.id, /^as_[0-9a-z]{26}$/);
    t.is(asset.type, expected.type);
    t.is(asset.size, file.bytes.length);
    t.is(asset.sha256, file.sha256);
    t.is(asset.label, '');
    t.is(asset.name, name, 'the filename, never the type');
    t.regex(asset.uploadedAt, ISO_UTC);
    t.true(asset.url.startsWith(`${stack.cdnUrl}/${asset.id}/`), asset.url);
    t.true(asset.url.endsWith(`.${expected.ext}`), asset.url);
    if (expected.image) {
      t.true(Number.isInteger(asset.width) && asset.width! > 0);
      t.true(Number.isInteger(asset.height) && asset.height! > 0);
    }

    const got = await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth });
    t.is(got.status, 200);
    t.deepEqual(await json(got), asset);

    const served = await fetch(asset.url);
    t.is(served.status, 200);
    t.is(served.headers.get('content-type'), expected.type);
    t.is(sha256(new Uint8Array(await served.arrayBuffer())), file.sha256);
  });
}

test('a label before the file is stored and returned', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const asset = await json<AssetJson>(
    await upload(auth, [
      ['label', 'avatars'],
      ['file', await fixtureFile('image.png')],
    ]),
  );
  t.is(asset.label, 'avatars');
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).label, 'avatars');
});

test("a label after the file is stored and returned too (sent as the stream's trailing label)", async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const response = await upload(auth, [
    ['file', await fixtureFile('notes.txt')],
    ['label', 'release notes'],
  ]);
  t.is(response.status, 201);
  const asset = await json<AssetJson>(response);
  t.is(asset.label, 'release notes');
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).label, 'release notes');
});

test('labels are validated by the service: too long or with control characters is 400 naming label', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const tooLong = await expectError(
    await upload(auth, [
      ['label', 'x'.repeat(201)],
      ['file', await fixtureFile('notes.txt')],
    ]),
    400,
    'invalid_argument',
  );
  t.is(tooLong.details[0]?.field, 'label');
  const control = await expectError(
    await upload(auth, [
      ['label', 'bell\u0007'],
      ['file', await fixtureFile('notes.txt')],
    ]),
    400,
    'invalid_argument',
  );
  t.is(control.details[0]?.field, 'label');
  const twice = await expectError(
    await upload(auth, [
      ['label', 'a'],
      ['file', await fixtureFile('notes.txt')],
      ['label', 'b'],
    ]),
    400,
    'invalid_argument',
  );
  t.is(twice.details[0]?.field, 'label');
});

test('replace keeps the id while type, size, url, sha256 and uploadedAt follow the new file; the old url is gone', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const original = await json<AssetJson>(
    await upload(auth, [
      ['label', 'doc'],
      ['file', await fixtureFile('image.png')],
    ]),
  );
  const oldBytes = await fetch(original.url);
  t.is(oldBytes.status, 200);

  const pdf = await fixture('document.pdf');
  const response = await replace(auth, original.id, await fixtureFile('document.pdf'));
  t.is(response.status, 200);
  t.is(response.headers.get('location'), null);
  const replaced = await json<AssetJson>(response);
  t.is(replaced.id, original.id);
  t.is(replaced.type, 'application/pdf');
  t.is(replaced.size, pdf.bytes.length);
  t.is(replaced.sha256, pdf.sha256);
  t.not(replaced.url, original.url);
  t.true(replaced.url.endsWith('.pdf'));
  t.regex(replaced.uploadedAt, ISO_UTC);
  t.not(replaced.uploadedAt, original.uploadedAt);
  t.true(Date.parse(replaced.uploadedAt) >= Date.parse(original.uploadedAt));
  t.is(replaced.label, 'doc', 'the label stays');
  t.is(replaced.width, undefined, 'a PDF has no pixel size');

  t.deepEqual(await json(await fetch(`${stack.url}/v1/assets/${original.id}`, { headers: auth })), replaced);
  await expectError(await fetch(original.url), 404, 'not_found');
  const served = await fetch(replaced.url);
  t.is(served.status, 200);
  t.is(served.headers.get('content-type'), 'application/pdf');
  t.is(sha256(new Uint8Array(await served.arrayBuffer())), pdf.sha256);
});

test('an empty file is a valid asset of 0 bytes', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const asset = await json<AssetJson>(await upload(auth, [['file', await fixtureFile('empty.dat')]]));
  t.is(asset.size, 0);
  t.is(asset.sha256, sha256(new Uint8Array()));
  const served = await fetch(asset.url);
  t.is(served.status, 200);
  t.is(served.headers.get('content-length'), '0');
  t.is((await served.arrayBuffer()).byteLength, 0);
});

test('a larger file streams through in many chunks intact', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const bytes = noise(3 * 1024 * 1024 + 17);
  const asset = await json<AssetJson>(await upload(auth, [['file', { bytes: new Uint8Array(bytes), filename: 'blob.bin' }]]));
  t.is(asset.size, bytes.length);
  t.is(asset.sha256, sha256(bytes));
  t.is(sha256(new Uint8Array(await (await fetch(asset.url)).arrayBuffer())), asset.sha256);
});

test('get and replace: a malformed id is 400, an unknown id 404', async (t) => {
  const auth = await stack.auth(freshWorkspace());
  const file = await fixtureFile('notes.txt');
  t.is(
    (await expectError(await fetch(`${stack.url}/v1/assets/rt_00000000000000000000000000`, { headers: auth }), 400, 'invalid_argument'))
      .details[0]?.field,
    'id',
  );
  await expectError(await fetch(`${stack.url}/v1/assets/as_00000000000000000000000000`, { headers: auth }), 404, 'not_found');
  await expectError(await replace(auth, '..%2F..%2Fetc', file), 400, 'invalid_argument');
  await expectError(await replace(auth, 'as_00000000000000000000000000', file), 404, 'not_found');
});

test("another workspace's asset does not exist for the caller: get and replace are 404, and nothing changes", async (t) => {
  const ownerAuth = await stack.auth(freshWorkspace());
  const asset = await json<AssetJson>(await upload(ownerAuth, [['file', await fixtureFile('image.png')]]));
  const stranger = await stack.auth(freshWorkspace());
  await expectError(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: stranger }), 404, 'not_found');
  await expectError(await replace(stranger, asset.id, await fixtureFile('notes.txt')), 404, 'not_found');
  t.deepEqual(await json(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: ownerAuth })), asset);
});

test('auth: no token is 401 on every asset endpoint; assets:read cannot upload or replace, assets:write cannot get', async (t) => {
  const ws = freshWorkspace();
  const file = await fixtureFile('notes.txt');
  const asset = await json<AssetJson>(await upload(await stack.auth(ws), [['file', file]]));
  await expectError(await upload({}, [['file', file]]), 401, 'unauthenticated');
  await expectError(await upload({ authorization: 'Bearer not.a.jwt' }, [['file', file]]), 401, 'unauthenticated');
  await expectError(await fetch(`${stack.url}/v1/assets/${asset.id}`), 401, 'unauthenticated');
  await expectError(await replace({}, asset.id, file), 401, 'unauthenticated');
  await expectError(await replace(await stack.auth(ws, { expiresIn: -10 }), asset.id, file), 401, 'unauthenticated');

  const readOnly = await stack.auth(ws, { scope: 'assets:read' });
  await expectError(await upload(readOnly, [['file', file]]), 403, 'permission_denied');
  await expectError(await replace(readOnly, asset.id, file), 403, 'permission_denied');
  const writeOnly = await stack.auth(ws, { scope: 'assets:write' });
  await expectError(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: writeOnly }), 403, 'permission_denied');
  const routesOnly = await stack.auth(ws, { scope: 'routes:read routes:write' });
  await expectError(await upload(routesOnly, [['file', file]]), 403, 'permission_denied');
  t.deepEqual(
    await json(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: readOnly })),
    asset,
    'refused replaces changed nothing',
  );
});
