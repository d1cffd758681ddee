// @switchyard/client against a real service and gateway: every RPC over each
// protocol, uploads from every kind of source, tokens, and error codes.
import { codeOf } from './support/codes.js';
import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { build } from 'esbuild';
import {
  Code,
  createRestClient,
  createSwitchyardClient,
  SwitchyardRestError,
  type Protocol,
  type RestAsset,
  type RestRoute,
  type SwitchyardClient,
} from '@switchyard/client';
import { createSwitchyardClient as createWebClient } from '@switchyard/client/web';
import { startStack, type Stack } from '../rest/support/stack.js';
import { ROOT } from '../support/cli.js';

const PNG = readFile(join(ROOT, 'test/fixtures/image.png'));
const PDF = readFile(join(ROOT, 'test/fixtures/document.pdf'));

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(() => stack?.stop());

/** The service port for gRPC, the gateway for the browser protocols. */
function clientFor(protocol: Protocol, workspace: string, token: string | (() => Promise<string>)): SwitchyardClient {
  const baseUrl = protocol === 'grpc' ? `http://${stack.service.address}` : stack.url;
  return createSwitchyardClient({ baseUrl, protocol, token });
}

for (const protocol of ['grpc', 'connect', 'grpc-web'] as const) {
  test(`${protocol}: routes are created, read and matched`, async (t) => {
    const workspace = `client-routes-${protocol}`;
    const client = clientFor(protocol, workspace, await stack.token(workspace));
    t.teardown(() => client.close());
    const created = await client.routes.createRoute({ method: 'get', path: '/users/:id', middleware: ['auth'], handler: 'getUser' });
    t.regex(created.id, /^rt_[0-9a-z]{26}$/);
    t.is(created.method, 'GET');
    t.deepEqual(created.middleware, ['auth']);
    const read = await client.routes.getRoute({ id: created.id });
    t.is(read.handler, 'getUser');
    const match = await client.routes.matchRoute({ method: 'GET', path: '/users/42' });
    t.is(match.route?.id, created.id);
    t.deepEqual(match.params, { id: '42' });
    t.is(await codeOf(client.routes.createRoute({ method: 'GET', path: '/users/:name', handler: 'again' })), Code.AlreadyExists);
    t.is(await codeOf(client.routes.createRoute({ method: 'GET', path: 'no-slash', handler: 'x' })), Code.InvalidArgument);
    t.is(await codeOf(client.routes.getRoute({ id: 'rt_00000000000000000000000000' })), Code.NotFound);
  });

  test(`${protocol}: uploads from bytes, a Blob, a Node stream, a path and an async iterable; replace keeps the id`, async (t) => {
    const workspace = `client-assets-${protocol}`;
    const client = clientFor(protocol, workspace, await stack.token(workspace));
    t.teardown(() => client.close());
    const png = await PNG;
    const path = join(stack.dataDir, `upload-${protocol}.png`);
    await writeFile(path, png);
    async function* pieces(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < png.length; at += 100) yield png.subarray(at, at + 100);
    }
    const sources = {
      bytes: new Uint8Array(png),
      blob: new Blob([new Uint8Array(png)]),
      stream: Readable.from([png]),
      path,
      iterable: pieces(),
    };
    for (const [kind, source] of Object.entries(sources)) {
      const asset = await client.uploadAsset(source, { label: kind });
      t.is(asset.type, 'image/png', kind);
      t.is(asset.size, BigInt(png.length), kind);
      t.is(asset.label, kind);
      t.is(asset.name, kind === 'path' ? `upload-${protocol}.png` : '', `${kind}: a path names the asset`);
      t.true(asset.url.endsWith('.png'), kind);
    }
    t.is((await client.uploadAsset(new File([new Uint8Array(png)], 'Ölbild.png'))).name, 'Ölbild.png', "a File's name");
    t.is((await client.uploadAsset(path, { filename: 'given.png' })).name, 'given.png', 'filename wins over the path');
    const first = await client.uploadAsset(new Uint8Array(png), { label: 'to replace' });
    const replaced = await client.replaceAsset(first.id, new Uint8Array(await PDF), { filename: 'doc.pdf' });
    t.is(replaced.id, first.id);
    t.is(replaced.type, 'application/pdf');
    t.is(replaced.label, 'to replace');
    t.is(replaced.name, 'doc.pdf');
    const read = await client.assets.getAsset({ id: first.id });
    t.is(read.url, replaced.url);
    const served = await fetch(read.url);
    t.is(served.status, 200);
    t.deepEqual(Buffer.from(await served.arrayBuffer()), await PDF);
    t.is((await client.replaceAsset(first.id, new Uint8Array(png))).name, 'doc.pdf', 'bytes name no file: the name stays');
    t.is(await codeOf(client.assets.getAsset({ id: 'as_00000000000000000000000000' })), Code.NotFound);
  });

  test(`${protocol}: no token is unauthenticated, a token without the scope is permission denied`, async (t) => {
    const workspace = `client-auth-${protocol}`;
    const anonymous = createSwitchyardClient({ baseUrl: protocol === 'grpc' ? `http://${stack.service.address}` : stack.url, protocol });
    t.teardown(() => anonymous.close());
    t.is(await codeOf(anonymous.routes.getRoute({ id: 'rt_00000000000000000000000000' })), Code.Unauthenticated);
    const reader = clientFor(protocol, workspace, await stack.token(workspace, { scope: 'routes:read' }));
    t.teardown(() => reader.close());
    t.is(await codeOf(reader.routes.createRoute({ method: 'GET', path: '/', handler: 'root' })), Code.PermissionDenied);
    t.is(await codeOf(reader.uploadAsset(new Uint8Array([1, 2, 3]))), Code.PermissionDenied);
  });
}

test('a token function is asked before every call', async (t) => {
  const workspace = 'client-token-fn';
  let asked = 0;
  const client = clientFor('grpc', workspace, async () => {
    asked += 1;
    return stack.token(workspace);
  });
  t.teardown(() => client.close());
  const route = await client.routes.createRoute({ method: 'GET', path: '/fn', handler: 'fn' });
  await client.routes.getRoute({ id: route.id });
  t.is(asked, 2);
});

test('an unknown protocol is refused when the client is made', (t) => {
  t.throws(() => createSwitchyardClient({ baseUrl: stack.url, protocol: 'soap' as Protocol }), {
    instanceOf: TypeError,
    message: /protocol must be one of grpc, connect, grpc-web/,
  });
});

test('the REST client: routes, uploads from bytes and a Blob, replace, and the gateway JSON error as SwitchyardRestError', async (t) => {
  const workspace = 'client-rest';
  const rest = createRestClient({ baseUrl: stack.url, token: await stack.token(workspace) });
  const route = await rest.createRoute({ method: 'post', path: '/orders/:id/items', handler: 'addItem' });
  t.is(route.method, 'POST');
  // The gateway's JSON has exactly the fields the client's types declare.
  t.deepEqual(Object.keys(route).sort(), [
    'createdAt',
    'handler',
    'id',
    'method',
    'middleware',
    'owner',
    'path',
    'revision',
    'updatedAt',
  ] satisfies (keyof RestRoute)[]);
  t.deepEqual((await rest.matchRoute('POST', '/orders/7/items')).params, { id: '7' });
  t.is((await rest.getRoute(route.id)).handler, 'addItem');
  const png = await PNG;
  const asset = await rest.uploadAsset(new Uint8Array(png), { label: 'logo', filename: 'logo.png' });
  t.is(asset.type, 'image/png');
  t.is(asset.size, png.length);
  t.deepEqual(Object.keys(asset).sort(), [
    'height',
    'id',
    'label',
    'name',
    'placeholder',
    'sha256',
    'size',
    'type',
    'uploadedAt',
    'url',
    'visibility',
    'width',
  ] satisfies (keyof RestAsset)[]);
  t.is(asset.name, 'logo.png');
  const replaced = await rest.replaceAsset(asset.id, new Blob([new Uint8Array(await PDF)]));
  t.is(replaced.id, asset.id);
  t.is(replaced.name, 'logo.png', 'a Blob names no file: the name stays');
  t.is((await rest.getAsset(asset.id)).type, 'application/pdf');
  t.is((await rest.uploadAsset(new Uint8Array(png))).name, '', 'bytes without a filename: no name');
  const file = await rest.uploadAsset(new File([new Uint8Array(png)], 'Straße 📷.png'));
  t.is(file.name, 'Straße 📷.png', "a File's own name");
  t.deepEqual((await rest.listAssets({ q: 'STRASSE' })).assets, [], 'ß is not ss: lower case, not case folding');
  t.deepEqual(
    (await rest.listAssets({ q: 'STRAßE' })).assets.map((found) => found.id),
    [file.id],
  );
  t.is((await rest.updateAsset(file.id, { name: 'Plan.png' })).name, 'Plan.png');
  t.deepEqual(
    (await rest.listAssets({ q: 'plan', type: 'image/*' })).assets.map((found) => found.id),
    [file.id],
  );

  const refusal = await t.throwsAsync(rest.createRoute({ method: 'post', path: '/orders/:other/items', handler: 'again' }), {
    instanceOf: SwitchyardRestError,
  });
  t.is(refusal?.status, 409);
  t.is(refusal?.code, 'already_exists');
  t.truthy(refusal?.requestId);
  const anonymous = createRestClient({ baseUrl: stack.url });
  const unauthenticated = await t.throwsAsync(anonymous.getAsset(asset.id), { instanceOf: SwitchyardRestError });
  t.is(unauthenticated?.status, 401);
  t.is(unauthenticated?.code, 'unauthenticated');
});

test('the web entry bundles for browsers without Node built-ins, and works over fetch against the gateway', async (t) => {
  const bundle = await build({
    entryPoints: [join(ROOT, 'client/src/web.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  t.deepEqual(bundle.errors, []);
  const code = bundle.outputFiles[0]!.text;
  t.notRegex(code, /from ["']node:|require\(["'](fs|http2?|stream)["']\)/);

  const workspace = 'client-web';
  const token = await stack.token(workspace);
  for (const protocol of ['connect', 'grpc-web'] as const) {
    const client = createWebClient({ baseUrl: stack.url, protocol, token });
    const route = await client.routes.createRoute({ method: 'GET', path: `/${protocol}`, handler: 'web' });
    t.is((await client.routes.getRoute({ id: route.id })).path, `/${protocol}`, protocol);
  }
  t.throws(() => createWebClient({ baseUrl: stack.url, protocol: 'grpc', token }), { instanceOf: TypeError, message: /connect, grpc-web/ });
});
