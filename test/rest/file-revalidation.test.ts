// Revalidations of public files answered from the gateway's validator cache
// (gateway/src/files/validator-cache.ts): a 304 skips the service call, and is
// never given after a change this gateway relayed (replace over REST and tus,
// delete, batch delete, private, the Connect protocol); a change made through
// another gateway counts within the cache's TTL, except in one process with the
// service, where the service's asset changes tell the gateway of every change at once.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { form, json } from './support/http.js';
import { tusUpload } from './support/tus.js';
import { createSwitchyardClient } from '@switchyard/client';
import { testWhen } from '../support/conditional-test.js';
import { eventually } from '../support/eventually.js';
import { parseMetrics, valueOf } from '../metrics/support/prometheus-text.js';
import { freshWorkspace, startStack, testChannel, type Stack } from './support/stack.js';

/** Long enough that no change below is seen through the TTL instead of its invalidation, however slow the machine. */
const LONG_TTL_MS = 10 * 60_000;
const TTL_MS = 1_000;
let stack: Stack;
/** A stack with a short TTL, and a second gateway in front of its service: another instance, whose changes the first cannot see. */
let short: Stack;
let other: GatewayHandle;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0' }, { fileValidators: { maxAssets: 100, ttlMs: LONG_TTL_MS } });
  short = await startStack({ RATE_LIMIT_PER_SECOND: '0' }, { fileValidators: { maxAssets: 100, ttlMs: TTL_MS } });
  const listener = await listen('127.0.0.1', 0);
  const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), CONSOLE: 'off' });
  other = await startGateway(
    { ...config, cdnUrl: short.cdnUrl },
    { inProcess: short.service.inProcess, log: createGatewayLogger('warn', { write: () => {} }), listener, shutdownTimeoutMs: 2_000 },
  );
});
test.after.always(async () => {
  await other?.close();
  await short?.stop();
  await stack?.stop();
});

interface AssetJson {
  id: string;
  url: string;
  sha256: string;
}

const file = (bytes: Buffer, name = 'bytes.bin') => ({ bytes: new Uint8Array(bytes), filename: name, type: 'application/octet-stream' });

async function upload(headers: Record<string, string>, on: Stack = stack): Promise<AssetJson> {
  const response = await fetch(`${on.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', file(randomBytes(2048))]]) });
  return json<AssetJson>(response);
}

let requests = 0;
/** A revalidation under a request id of its own; `called` says whether the service was asked (its call line carries the id). */
async function revalidate(url: string, etag: string, on: Stack = stack): Promise<{ status: number; called: boolean }> {
  const id = `reval-${process.pid}-${++requests}`;
  const response = await fetch(url, { headers: { 'if-none-match': etag, 'x-request-id': id } });
  await response.arrayBuffer();
  return { status: response.status, called: on.serviceLogLines.some((line) => line.includes(`"requestId":"${id}"`)) };
}

/** Revalidated twice: the second 304 comes from the cache. */
async function cached(
  t: { is(a: unknown, b: unknown, m?: string): void; false(a: boolean, m?: string): void },
  asset: AssetJson,
  on: Stack = stack,
): Promise<void> {
  const etag = `"${asset.sha256}"`;
  t.is((await revalidate(asset.url, etag, on)).status, 304);
  const again = await revalidate(asset.url, etag, on);
  t.is(again.status, 304);
  t.false(again.called, 'the second 304 made no service call');
}

test('a repeated revalidation is answered without the service; a changed ETag, a download, HEAD and If-Match still ask it', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const asset = await upload(headers);
  await cached(t, asset);
  const stale = await revalidate(asset.url, '"not-it"');
  t.is(stale.status, 200);
  t.true(stale.called, "a 200 is always the service's answer");
  const download = await fetch(`${asset.url}?download`, { headers: { 'if-none-match': `"${asset.sha256}"` } });
  t.is(download.status, 304);
  t.truthy(download.headers.get('content-disposition'), "a download's 304 names the file, as read afresh");
  const ifMatch = await fetch(asset.url, { headers: { 'if-match': '"not-it"', 'if-none-match': `"${asset.sha256}"` } });
  t.is(ifMatch.status, 412, "If-Match is judged on the service's answer first");
});

test('a replace over REST: the old url answers 404 at once, never 304; the new one serves the new bytes', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const asset = await upload(headers);
  await cached(t, asset);
  const replaced = await json<AssetJson>(
    await fetch(`${stack.url}/v1/assets/${asset.id}/replace`, { method: 'POST', headers, body: form([['file', file(randomBytes(2048))]]) }),
  );
  t.is(replaced.id, asset.id);
  t.not(replaced.url, asset.url);
  t.is((await revalidate(asset.url, `"${asset.sha256}"`)).status, 404);
  t.is((await revalidate(replaced.url, `"${asset.sha256}"`)).status, 200);
  await cached(t, replaced);
});

test('a replace over tus: the old url answers 404 at once', async (t) => {
  const workspace = freshWorkspace();
  const headers = await stack.auth(workspace);
  const asset = await upload(headers);
  await cached(t, asset);
  const replaced = await tusUpload(randomBytes(4096), { endpoint: `${stack.url}/v1/uploads`, headers, metadata: { replace: asset.id } });
  t.is(replaced.assetId, asset.id);
  t.is((await revalidate(asset.url, `"${asset.sha256}"`)).status, 404);
});

test('delete, batch delete, made private, and a delete over the Connect protocol: no 304 after any of them', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const etagOf = (asset: AssetJson) => `"${asset.sha256}"`;

  const deleted = await upload(headers);
  await cached(t, deleted);
  t.is((await fetch(`${stack.url}/v1/assets/${deleted.id}`, { method: 'DELETE', headers })).status, 204);
  t.is((await revalidate(deleted.url, etagOf(deleted))).status, 404);

  const batch = await upload(headers);
  await cached(t, batch);
  const batchAnswer = await fetch(`${stack.url}/v1/assets:batchDelete`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ids: [batch.id] }),
  });
  t.is(batchAnswer.status, 200);
  t.is((await revalidate(batch.url, etagOf(batch))).status, 404);

  const hidden = await upload(headers);
  await cached(t, hidden);
  const patched = await fetch(`${stack.url}/v1/assets/${hidden.id}`, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ visibility: 'private' }),
  });
  t.is(patched.status, 200);
  t.is((await revalidate(hidden.url, etagOf(hidden))).status, 403, 'a private file needs its signature again');

  const viaConnect = await upload(headers);
  await cached(t, viaConnect);
  const connect = await fetch(`${stack.url}/switchyard.v1.AssetService/DeleteAsset`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ id: viaConnect.id }),
  });
  t.is(connect.status, 200);
  t.is((await revalidate(viaConnect.url, etagOf(viaConnect))).status, 404);
});

test('a change made through another gateway counts within the TTL', async (t) => {
  const headers = await short.auth(freshWorkspace());
  const asset = await upload(headers, short);
  await cached(t, asset, short);
  const deletedAt = Date.now();
  t.is((await fetch(`${other.url}/v1/assets/${asset.id}`, { method: 'DELETE', headers })).status, 204);
  // The first gateway did not see it: its answer may be 304 until its entry, made before the delete, expires.
  await sleep(Math.max(0, deletedAt + TTL_MS + 50 - Date.now()));
  const after = await revalidate(asset.url, `"${asset.sha256}"`, short);
  t.is(after.status, 404);
  t.true(after.called);
});

const allInOne = testWhen(testChannel() === 'in-process', 'a split deployment: the TTL bounds what another instance changed');

allInOne(
  'in one process with the service: a change this gateway never relayed (the gRPC port, another gateway) ends its 304s at once',
  async (t) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    const grpc = createSwitchyardClient({ baseUrl: `http://${stack.service.address}`, token: await stack.token(workspace) });
    t.teardown(() => grpc.close());
    const listener = await listen('127.0.0.1', 0);
    const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), CONSOLE: 'off' });
    const second = await startGateway(
      { ...config, cdnUrl: stack.cdnUrl },
      { inProcess: stack.service.inProcess, log: createGatewayLogger('warn', { write: () => {} }), listener, shutdownTimeoutMs: 2_000 },
    );
    t.teardown(() => second.close());
    const etagOf = (asset: AssetJson) => `"${asset.sha256}"`;

    const deleted = await upload(headers);
    await cached(t, deleted);
    await grpc.assets.deleteAsset({ id: deleted.id });
    t.is((await revalidate(deleted.url, etagOf(deleted))).status, 404, 'deleted over gRPC');

    const hidden = await upload(headers);
    await cached(t, hidden);
    await grpc.assets.updateAsset({ id: hidden.id, visibility: 'private' });
    t.is((await revalidate(hidden.url, etagOf(hidden))).status, 403, 'made private over gRPC');

    const elsewhere = await upload(headers);
    await cached(t, elsewhere);
    t.is((await fetch(`${second.url}/v1/assets/${elsewhere.id}`, { method: 'DELETE', headers })).status, 204);
    t.is((await revalidate(elsewhere.url, etagOf(elsewhere))).status, 404, 'deleted through another gateway');

    const kept = await upload(headers);
    await cached(t, kept);
    await grpc.assets.updateAsset({ id: elsewhere.id.replace(/.$/, '0'), label: 'x' }).catch(() => undefined);
    t.false((await revalidate(kept.url, etagOf(kept))).called, 'a change to nothing, or to another asset, keeps the others cached');
  },
);

/** A GET under a request id of its own: its status, body, and whether the service was asked. */
async function getFile(url: string, on: Stack = stack, headers: Record<string, string> = {}, method = 'GET') {
  const id = `get-${process.pid}-${++requests}`;
  const response = await fetch(url, { method, headers: { ...headers, 'x-request-id': id } });
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    body,
    headers: response.headers,
    called: on.serviceLogLines.some((line) => line.includes(`"requestId":"${id}"`)),
  };
}

allInOne(
  'in one process: GETs, ranges and HEADs answered from memory; a delete, a replace and private over the gRPC port or another gateway end them at once',
  async (t) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    const grpc = createSwitchyardClient({ baseUrl: `http://${stack.service.address}`, token: await stack.token(workspace) });
    t.teardown(() => grpc.close());
    const listener = await listen('127.0.0.1', 0);
    const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), CONSOLE: 'off' });
    const second = await startGateway(
      { ...config, cdnUrl: stack.cdnUrl },
      { inProcess: stack.service.inProcess, log: createGatewayLogger('warn', { write: () => {} }), listener, shutdownTimeoutMs: 2_000 },
    );
    t.teardown(() => second.close());
    const uploadBytes = async () => {
      const bytes = randomBytes(2048);
      const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', file(bytes)]]) });
      return { asset: await json<AssetJson>(response), bytes };
    };
    /** The first GET reads the service; a later one comes from memory, the same bytes. */
    const fromMemory = async ({ asset, bytes }: { asset: AssetJson; bytes: Buffer }) => {
      const first = await getFile(asset.url);
      t.is(first.status, 200);
      t.true(first.body.equals(bytes));
      // Kept once the service's stream ends, which may be after the client has every byte.
      const again = await eventually(
        async () => {
          const answer = await getFile(asset.url);
          return answer.called ? undefined : answer;
        },
        { timeout: 10_000, interval: 20, message: `a GET of ${asset.id} answered from memory` },
      );
      t.is(again.status, 200);
      t.true(again.body.equals(bytes));
      t.is(again.headers.get('etag'), `"${asset.sha256}"`);
    };

    const kept = await uploadBytes();
    await fromMemory(kept);
    const range = await getFile(kept.asset.url, stack, { range: 'bytes=10-19' });
    t.is(range.status, 206);
    t.false(range.called);
    t.true(range.body.equals(kept.bytes.subarray(10, 20)));
    t.is(range.headers.get('content-range'), 'bytes 10-19/2048');
    const head = await getFile(kept.asset.url, stack, {}, 'HEAD');
    t.is(head.status, 200);
    t.false(head.called);
    t.is(head.headers.get('content-length'), '2048');
    const unsatisfiable = await getFile(kept.asset.url, stack, { range: 'bytes=4096-' });
    t.is(unsatisfiable.status, 416);
    const stale = await getFile(kept.asset.url, stack, { 'if-match': '"not-it"' });
    t.is(stale.status, 412);
    t.is(stale.headers.get('content-type'), 'application/json; charset=utf-8', 'the error shape of every refusal');

    const deleted = await uploadBytes();
    await fromMemory(deleted);
    await grpc.assets.deleteAsset({ id: deleted.asset.id });
    t.is((await getFile(deleted.asset.url)).status, 404, 'deleted over gRPC');

    const replaced = await uploadBytes();
    await fromMemory(replaced);
    const newBytes = randomBytes(2048);
    const after = await grpc.replaceAsset(replaced.asset.id, new Uint8Array(newBytes));
    t.is((await getFile(replaced.asset.url)).status, 404, 'the old url of an asset replaced over gRPC');
    const fresh = await getFile(after.url);
    t.is(fresh.status, 200);
    t.true(fresh.body.equals(newBytes), 'the new bytes');

    const hidden = await uploadBytes();
    await fromMemory(hidden);
    const patched = await fetch(`${second.url}/v1/assets/${hidden.asset.id}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ visibility: 'private' }),
    });
    t.is(patched.status, 200);
    t.is((await getFile(hidden.asset.url)).status, 403, 'made private through another gateway');

    const elsewhere = await uploadBytes();
    await fromMemory(elsewhere);
    t.is((await fetch(`${second.url}/v1/assets/${elsewhere.asset.id}`, { method: 'DELETE', headers })).status, 204);
    t.is((await getFile(elsewhere.asset.url)).status, 404, 'deleted through another gateway');

    const untouched = await getFile(kept.asset.url);
    t.is(untouched.status, 200);
    t.false(untouched.called, 'changes to other assets keep this one in memory');
  },
);

/** An answer's headers but those that differ between any two answers (its date, its request id). */
function comparableHeaders(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  delete headers['date'];
  delete headers['x-request-id'];
  return headers;
}

/** The `http_server_request_duration_seconds` count of 304s to GETs of the files route. */
async function fileNotModifiedCount(on: Stack): Promise<number> {
  return valueOf(parseMetrics(await on.metrics.metrics()), 'http_server_request_duration_seconds_count', {
    method: 'GET',
    route: `${new URL(on.cdnUrl).pathname}/:assetId/:fileName`,
    status_code: '304',
  });
}

// The lane in front of Fastify (gateway/src/files/revalidation-lane.ts) must answer as the files route does.
for (const [cors, env] of [
  ['CORS_ORIGINS *', {}],
  ['a list of CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example' }],
] as const) {
  test(`with ${cors}, a revalidation answered from the cache has the route's headers, its request id, access line and metric`, async (t) => {
    const on = await startStack({ RATE_LIMIT_PER_SECOND: '0', ...env }, { fileValidators: { maxAssets: 100, ttlMs: LONG_TTL_MS } });
    t.teardown(() => on.stop());
    const asset = await upload(await on.auth(freshWorkspace()), on);
    const conditional = { 'if-none-match': `"${asset.sha256}"` };
    // The first goes through the route (the service is asked, the cache filled); the second is the lane's.
    const routed = await fetch(asset.url, { headers: { ...conditional, 'x-request-id': `routed-${process.pid}` } });
    const countBefore = await fileNotModifiedCount(on);
    const laneId = `lane-${process.pid}`;
    const known = await fetch(asset.url, { headers: { ...conditional, 'x-request-id': laneId } });
    t.is(routed.status, 304);
    t.is(known.status, 304);
    t.false(
      on.serviceLogLines.some((line) => line.includes(laneId)),
      'the second made no service call',
    );
    t.deepEqual(comparableHeaders(known), comparableHeaders(routed), 'GET');
    t.is(known.headers.get('x-request-id'), laneId);
    // HEAD alike; with If-Match (passing) too, the route answers it.
    const head = await fetch(asset.url, { method: 'HEAD', headers: conditional });
    const routedHead = await fetch(asset.url, { method: 'HEAD', headers: { ...conditional, 'if-match': conditional['if-none-match'] } });
    t.is(head.status, 304);
    t.is(routedHead.status, 304);
    t.deepEqual(comparableHeaders(head), comparableHeaders(routedHead), 'HEAD');
    const line = await eventually(() => on.logLines.find((l) => l.includes(`"requestId":"${laneId}"`)), {
      timeout: 10_000,
      message: "the access line of the lane's answer",
    });
    t.like(JSON.parse(line) as Record<string, unknown>, {
      method: 'GET',
      path: new URL(asset.url).pathname,
      status: 304,
      completed: true,
    });
    t.regex((JSON.parse(line) as { traceId: string }).traceId, /^[0-9a-f]{32}$/);
    t.is(await fileNotModifiedCount(on), countBefore + 1);
  });
}

test('a request the lane does not answer goes on to the route: If-Match first, a query, an Origin', async (t) => {
  const headers = await stack.auth(freshWorkspace());
  const asset = await upload(headers);
  const etag = `"${asset.sha256}"`;
  await cached(t, asset);
  // If-Match is evaluated before If-None-Match: a wrong one is 412, whatever the cache holds.
  const refused = await fetch(asset.url, { headers: { 'if-none-match': etag, 'if-match': '"other"' } });
  await refused.arrayBuffer();
  t.is(refused.status, 412);
  // With an Origin the CORS plugin answers for it.
  const cross = await fetch(asset.url, { headers: { 'if-none-match': etag, origin: 'https://elsewhere.example' } });
  await cross.arrayBuffer();
  t.is(cross.status, 304);
  t.is(cross.headers.get('access-control-allow-origin'), '*');
  // A download names the file: the route answers it, with the disposition.
  const download = await fetch(`${asset.url}?download`, { headers: { 'if-none-match': etag } });
  await download.arrayBuffer();
  t.is(download.status, 304);
  t.regex(download.headers.get('content-disposition') ?? '', /^attachment/);
});
