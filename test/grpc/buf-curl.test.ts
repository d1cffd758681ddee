// Third-party tooling against the service: `buf curl` with server reflection
// only (no .proto files), as an internal user would reach for it first. Every
// method is listed, and each is called through the schema reflection serves.
import test from 'ava';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { run } from '../support/run.js';
import { fixture } from './support/fixtures.js';
import { startTestService, tempDir, type TestService } from './support/test-service.js';
import { mintToken } from './support/tokens.js';

const BUF = join(ROOT, 'node_modules/.bin/buf');

/** buf curl's output: a reply in protobuf's JSON mapping, with the fields a test reads. */
const reply = <T>(text: string): T => JSON.parse(text) as T;

let svc: TestService;
let dir: { path: string; remove(): Promise<void> };
test.before(async () => {
  dir = await tempDir('buf-curl');
  svc = await startTestService({
    dataDir: dir.path,
    storage: { database: { kind: 'sqlite', file: join(dir.path, 'db.sqlite') }, blobs: { kind: 'disk', root: join(dir.path, 'files') } },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await dir?.remove();
});

/** `buf curl` over gRPC (HTTP/2 without TLS), schema from reflection only. */
async function bufCurl(args: readonly string[], input?: string): Promise<{ code: number | null; stdout: string; output: string }> {
  const base = ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '--reflect'];
  const data = input === undefined ? [] : ['-d', input];
  return run(BUF, [...base, ...data, ...args], { cwd: dir.path });
}

const url = (method: string) => `http://${svc.handle.address}/${method}`;
const workspace = 'buf-curl';
const authorization = async () => ['-H', `Authorization: Bearer ${await mintToken(svc.secret, { workspace })}`];

test('buf curl --list-methods through reflection lists every method of our services and health', async (t) => {
  const listed = await bufCurl(['--list-methods', `http://${svc.handle.address}`]);
  t.is(listed.code, 0, listed.output);
  t.deepEqual(listed.stdout.trim().split('\n'), [
    'grpc.health.v1.Health/Check',
    'grpc.health.v1.Health/List',
    'grpc.health.v1.Health/Watch',
    'switchyard.v1.AssetService/BatchDeleteAssets',
    'switchyard.v1.AssetService/CreateSignedUrl',
    'switchyard.v1.AssetService/DeleteAsset',
    'switchyard.v1.AssetService/GetAsset',
    'switchyard.v1.AssetService/GetWorkspacePolicy',
    'switchyard.v1.AssetService/GetWorkspaceUsage',
    'switchyard.v1.AssetService/ListAssetChanges',
    'switchyard.v1.AssetService/ListAssetVersions',
    'switchyard.v1.AssetService/ListAssets',
    'switchyard.v1.AssetService/ListTrash',
    'switchyard.v1.AssetService/PurgeAsset',
    'switchyard.v1.AssetService/ReadAssetVersion',
    'switchyard.v1.AssetService/ReplaceAsset',
    'switchyard.v1.AssetService/RestoreAsset',
    'switchyard.v1.AssetService/RestoreAssetVersion',
    'switchyard.v1.AssetService/RevokeSignedUrls',
    'switchyard.v1.AssetService/SetWorkspacePolicy',
    'switchyard.v1.AssetService/UpdateAsset',
    'switchyard.v1.AssetService/UploadAsset',
    'switchyard.v1.AssetService/WatchAssets',
    'switchyard.v1.FileService/ReadFile',
    'switchyard.v1.KeyService/CreateKey',
    'switchyard.v1.KeyService/GetCaller',
    'switchyard.v1.KeyService/GetKey',
    'switchyard.v1.KeyService/ListKeys',
    'switchyard.v1.KeyService/RevokeKey',
    'switchyard.v1.KeyService/RollKey',
    'switchyard.v1.RouteService/ApplyRoutes',
    'switchyard.v1.RouteService/CreateRoute',
    'switchyard.v1.RouteService/DeleteRoute',
    'switchyard.v1.RouteService/GetRoute',
    'switchyard.v1.RouteService/ListRouteChanges',
    'switchyard.v1.RouteService/ListRoutes',
    'switchyard.v1.RouteService/MatchRoute',
    'switchyard.v1.RouteService/RollbackRoutes',
    'switchyard.v1.RouteService/UpdateRoute',
    'switchyard.v1.RouteService/WatchRoutes',
    'switchyard.v1.UploadService/AppendUpload',
    'switchyard.v1.UploadService/CreateUpload',
    'switchyard.v1.UploadService/GetUpload',
    'switchyard.v1.UploadService/TerminateUpload',
    'switchyard.v1.WebhookService/CreateWebhook',
    'switchyard.v1.WebhookService/DeleteWebhook',
    'switchyard.v1.WebhookService/GetWebhook',
    'switchyard.v1.WebhookService/ListDeliveries',
    'switchyard.v1.WebhookService/ListWebhooks',
    'switchyard.v1.WebhookService/RecoverDeliveries',
    'switchyard.v1.WebhookService/ResendDelivery',
    'switchyard.v1.WebhookService/RotateWebhookSecret',
    'switchyard.v1.WebhookService/TestWebhook',
    'switchyard.v1.WebhookService/UpdateWebhook',
  ]);
});

test('health is callable through reflection', async (t) => {
  const check = await bufCurl([url('grpc.health.v1.Health/Check')], JSON.stringify({ service: 'switchyard.v1.RouteService' }));
  t.is(check.code, 0, check.output);
  t.deepEqual(JSON.parse(check.stdout), { status: 'SERVING' });
  const list = await bufCurl([url('grpc.health.v1.Health/List')], '{}');
  t.is(list.code, 0, list.output);
  t.is(reply<{ statuses: Record<string, { status: string }> }>(list.stdout).statuses['switchyard.v1.AssetService']?.status, 'SERVING');
});

test('every RouteService method is callable through reflection, errors included', async (t) => {
  const auth = await authorization();
  const created = await bufCurl(
    [...auth, url('switchyard.v1.RouteService/CreateRoute')],
    JSON.stringify({ method: 'get', path: '/users/:id', middleware: ['auth'], handler: 'getUser' }),
  );
  t.is(created.code, 0, created.output);
  const route = reply<{ id: string }>(created.stdout);
  t.regex(route.id, /^rt_/);
  const read = await bufCurl([...auth, url('switchyard.v1.RouteService/GetRoute')], JSON.stringify({ id: route.id }));
  t.is(reply<{ handler: string }>(read.stdout).handler, 'getUser', read.output);
  const matched = await bufCurl(
    [...auth, url('switchyard.v1.RouteService/MatchRoute')],
    JSON.stringify({ method: 'GET', path: '/users/7' }),
  );
  t.deepEqual(reply<{ params: unknown }>(matched.stdout).params, { id: '7' }, matched.output);
  const refused = await bufCurl([url('switchyard.v1.RouteService/GetRoute')], JSON.stringify({ id: route.id }));
  t.not(refused.code, 0);
  t.regex(refused.output, /unauthenticated/);
});

test('uploads (client streams), reads and file reads (server streams) are callable through reflection', async (t) => {
  const auth = await authorization();
  const png = (await fixture('png')).bytes;
  const stream = (first: object) =>
    [first, { chunk: png.subarray(0, 100).toString('base64') }, { chunk: png.subarray(100).toString('base64') }]
      .map((message) => JSON.stringify(message))
      .join('\n');
  const uploaded = await bufCurl([...auth, url('switchyard.v1.AssetService/UploadAsset')], stream({ metadata: { label: 'logo' } }));
  t.is(uploaded.code, 0, uploaded.output);
  const asset = reply<{ id: string; type: string; size: string }>(uploaded.stdout);
  t.is(asset.type, 'image/png');
  t.is(Number(asset.size), png.length);

  const replaced = await bufCurl([...auth, url('switchyard.v1.AssetService/ReplaceAsset')], stream({ metadata: { id: asset.id } }));
  t.is(replaced.code, 0, replaced.output);
  t.is(reply<{ id: string }>(replaced.stdout).id, asset.id);

  const read = await bufCurl([...auth, url('switchyard.v1.AssetService/GetAsset')], JSON.stringify({ id: asset.id }));
  const current = reply<{ label: string; url: string; sha256: string }>(read.stdout);
  t.is(current.label, 'logo', read.output);

  const path = new URL(current.url).pathname.split('/').slice(-2).join('/');
  const file = await bufCurl([...auth, url('switchyard.v1.FileService/ReadFile')], JSON.stringify({ path }));
  t.is(file.code, 0, file.output);
  const messages = file.stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((text) => reply<{ info?: { sha256: string }; chunk?: string }>(text));
  t.is(messages[0]?.info?.sha256, current.sha256);
  const bytes = Buffer.concat(messages.slice(1).map((message) => Buffer.from(message.chunk ?? '', 'base64')));
  t.deepEqual(bytes, png);
});
