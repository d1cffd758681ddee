// GET /v1/assets:watch (Server-Sent Events) and GET /v1/assets/{id}/history, end to end: two
// stacks (service + gateway each) over one SQLite database, so a watcher on B hears what is done
// through A (by polling, as without EVENTS_URL); resuming with Last-Event-ID; reset; the refusals.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRestClient, createSwitchyardClient, watchAssets, type AssetWatchEvent } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { form, json } from './support/http.js';
import { SseWatch } from './support/sse-watch.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let shared: string;
let a: Stack;
let b: Stack;
let env: Record<string, string>;

test.before(async () => {
  shared = await mkdtemp(join(tmpdir(), 'switchyard-asset-watch-'));
  env = { DATA_DIR: shared, AUTH_SECRET: randomBytes(32).toString('base64url'), WATCH_HEARTBEAT_MS: '1000' };
  a = await startStack(env);
  b = await startStack(env);
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  if (shared) await rm(shared, { recursive: true, force: true });
});

type Headers = Record<string, string>;

async function upload(stack: Stack, headers: Headers, text: string): Promise<Record<string, unknown>> {
  const body = form([['file', { bytes: new TextEncoder().encode(text), filename: `${text}.txt` }]]);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return json(response);
}

async function call(stack: Stack, method: string, path: string, headers: Headers, body?: unknown) {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: response.status === 204 ? {} : await json(response) };
}

const watchUrl = (stack: Stack, query = '') => `${stack.url}/v1/assets:watch${query}`;

/** The watch's events without heartbeats, as `name#id`. */
const names = (watch: SseWatch) => watch.events.filter((e) => e.event !== 'heartbeat').map((e) => `${e.event}#${e.id ?? ''}`);

test('a watch from now: synced, then every change made through the other instance, each named by its type with its revision as id', async (t) => {
  const headers = await a.auth(freshWorkspace('watch'), { subject: 'ann' });
  const first = await upload(a, headers, 'one');
  const watch = new SseWatch(watchUrl(b), headers);
  t.teardown(() => watch.close());
  const synced = await watch.waitFor((e) => e.event === 'synced');
  t.deepEqual(synced, { event: 'synced', id: '1', data: { revision: 1 } });
  const second = await upload(a, headers, 'two');
  t.is((await call(a, 'PATCH', `/v1/assets/${String(second['id'])}`, headers, { label: 'renamed' })).status, 200);
  t.is((await call(a, 'POST', '/v1/assets:batchDelete', headers, { ids: [first['id'], second['id']] })).status, 200);
  await watch.waitFor((e) => e.event === 'asset.deleted' && e.data['assetId'] === second['id']);
  t.deepEqual(names(watch), ['synced#1', 'asset.created#2', 'asset.updated#3', 'asset.deleted#4', 'asset.deleted#4']);
  const created = watch.events.find((e) => e.event === 'asset.created')!.data;
  t.like(created, { type: 'asset.created', revision: 2, actor: 'ann', assetId: second['id'], asset: { id: second['id'] } });
  // Each instance names its own CDN base; the file is the same.
  t.is(new URL(String((created['asset'] as Record<string, unknown>)['url'])).pathname, new URL(String(second['url'])).pathname);
  t.regex(String(created['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.like(watch.events.find((e) => e.event === 'asset.updated')!.data, { asset: { label: 'renamed' } });
  t.is(watch.events.find((e) => e.event === 'asset.deleted')!.data['asset'], null);
  const heartbeat = await watch.waitFor((e) => e.event === 'heartbeat');
  t.deepEqual(heartbeat, { event: 'heartbeat', id: undefined, data: { revision: 4 } }, 'a heartbeat once quiet, at the revision reached');
});

test('Last-Event-ID resumes after it (and wins over sinceRevision); a revision never reached is a reset', async (t) => {
  const headers = await a.auth(freshWorkspace('resume'));
  for (const text of ['r1', 'r2', 'r3']) await upload(a, headers, text);
  const resumed = new SseWatch(watchUrl(b, '?sinceRevision=0'), { ...headers, 'last-event-id': '1' });
  t.teardown(() => resumed.close());
  await resumed.waitFor((e) => e.id === '3');
  t.deepEqual(names(resumed), ['asset.created#2', 'asset.created#3']);
  const current = new SseWatch(watchUrl(b, '?sinceRevision=3'), headers);
  t.teardown(() => current.close());
  t.like(await current.waitFor(() => true), { event: 'heartbeat', data: { revision: 3 } }, 'already current: a heartbeat at once');
  const ahead = new SseWatch(watchUrl(b, '?sinceRevision=40'), headers);
  t.teardown(() => ahead.close());
  t.deepEqual(await ahead.waitFor(() => true), { event: 'reset', id: '3', data: { revision: 3 } });
  await upload(a, headers, 'r4');
  t.like(await ahead.waitFor((e) => e.event === 'asset.created'), { id: '4' }, 'changes follow the reset');
});

test('refusals are JSON errors before the stream starts: a bad revision 400, no token 401, no assets:read 403', async (t) => {
  const workspace = freshWorkspace('refused');
  const headers = await a.auth(workspace);
  const cases: [string, Headers, number, string][] = [
    ['?sinceRevision=-1', headers, 400, 'invalid_argument'],
    ['?sinceRevision=1.5', headers, 400, 'invalid_argument'],
    ['?sinceRevision=abc', headers, 400, 'invalid_argument'],
    ['', { ...headers, 'last-event-id': 'x' }, 400, 'invalid_argument'],
    ['', {}, 401, 'unauthenticated'],
    ['', await a.auth(workspace, { scope: 'assets:write routes:read' }), 403, 'permission_denied'],
  ];
  for (const [query, given, status, code] of cases) {
    const response = await fetch(watchUrl(a, query), { headers: { ...given, accept: 'text/event-stream' } });
    t.is(response.status, status, query);
    t.like(await json(response), { code }, query);
  }
});

test('history: newest first in pages, a deleted asset keeps it, another workspace or an unknown id is 404, bad paging 400', async (t) => {
  const workspace = freshWorkspace('history');
  const headers = await a.auth(workspace);
  const asset = await upload(a, headers, 'h1');
  const id = String(asset['id']);
  for (const label of ['v2', 'v3']) await call(a, 'PATCH', `/v1/assets/${id}`, headers, { label });
  await call(a, 'DELETE', `/v1/assets/${id}`, headers);
  const pages: Record<string, unknown>[] = [];
  let token = '';
  do {
    const { status, json: page } = await call(b, 'GET', `/v1/assets/${id}/history?pageSize=3&pageToken=${token}`, headers);
    t.is(status, 200);
    pages.push(page);
    token = String(page['nextPageToken']);
  } while (token !== '');
  const changes = pages.flatMap((page) => page['changes'] as Record<string, unknown>[]);
  t.deepEqual(
    changes.map((change) => `${String(change['type'])}@${String(change['revision'])}`),
    ['asset.deleted@4', 'asset.updated@3', 'asset.updated@2', 'asset.created@1'],
  );
  t.is(pages.length, 2);
  t.like(changes[1], { assetId: id, asset: { id, label: 'v3' } });

  const unknown = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
  const refusals: [string, Headers, number, string][] = [
    [`/v1/assets/${unknown}/history`, headers, 404, 'not_found'],
    [`/v1/assets/${id}/history`, await a.auth(freshWorkspace('other')), 404, 'not_found'],
    ['/v1/assets/not-an-id/history', headers, 400, 'invalid_argument'],
    [`/v1/assets/${id}/history?pageSize=0`, headers, 400, 'invalid_argument'],
    [`/v1/assets/${id}/history?pageSize=1001`, headers, 400, 'invalid_argument'],
    [`/v1/assets/${id}/history?pageToken=forged`, headers, 400, 'invalid_argument'],
    [`/v1/assets/${id}/history`, await a.auth(workspace, { scope: 'assets:write' }), 403, 'permission_denied'],
  ];
  for (const [path, given, status, code] of refusals) {
    const answer = await call(b, 'GET', path, given);
    t.is(answer.status, status, path);
    t.like(answer.json, { code }, path);
  }
});

test('@switchyard/client: watchAssets follows through the loss of its gateway, resuming on the next with Last-Event-ID; history over REST and Connect', async (t) => {
  const workspace = freshWorkspace('client');
  const headers = await a.auth(workspace);
  const doomed = await startStack(env);
  t.teardown(() => doomed.stop());
  const watch = watchAssets({ url: [doomed.url, b.url], token: await a.token(workspace), minBackoffMs: 50 });
  t.teardown(() => watch.close());
  const events: AssetWatchEvent[] = [];
  watch.onEvent((event) => events.push(event));
  await watch.ready;
  const seen = () => events.flatMap((event) => (event.type === 'change' ? [`${event.change.type}@${event.revision}`] : []));
  const first = await upload(a, headers, 'c1');
  await eventually(() => seen().length === 1, { timeout: 20_000, message: 'the first change' });
  await doomed.stop();
  // Made while the watch has no gateway: it must come on the next one, after the first, once.
  await call(a, 'PATCH', `/v1/assets/${String(first['id'])}`, headers, { label: 'while away' });
  await upload(a, headers, 'c3');
  await eventually(() => seen().length === 3, { timeout: 20_000, message: 'the changes made while away' });
  t.deepEqual(seen(), ['asset.created@1', 'asset.updated@2', 'asset.created@3']);
  t.is(events[0]?.type, 'synced');
  t.true(watch.connected);

  const rest = createRestClient({ baseUrl: b.url, token: await a.token(workspace) });
  const page = await rest.listAssetChanges(String(first['id']), { pageSize: 10 });
  t.deepEqual(
    page.changes.map((change) => change.type),
    ['asset.updated', 'asset.created'],
  );
  const connect = createSwitchyardClient({ baseUrl: b.url, protocol: 'connect', token: await a.token(workspace) });
  const listed = await connect.assets.listAssetChanges({ id: String(first['id']), pageSize: 1 });
  t.deepEqual(
    listed.changes.map((change) => `${change.type}@${change.revision}`),
    ['asset.updated@2'],
  );
  t.not(listed.nextPageToken, '');
});
