// Routes as code over REST, end to end (gateway → gRPC → SQLite): owners on
// single routes, apply, the change log, the table at a revision, rollback, and
// the watch's marks of a revision's changes before its last.
import test from 'ava';
import { createSwitchyardClient } from '@switchyard/client';
import { json } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  // Two revisions of history: older ones are refused with how far back it goes.
  stack = await startStack({ ROUTE_HISTORY: '4' });
});
test.after.always(async () => stack?.stop());

type Body = Record<string, unknown>;
interface RouteJson {
  id: string;
  method: string;
  path: string;
  handler: string;
  owner: string;
  revision: number;
}
interface ApplyJson {
  revision: number;
  created: RouteJson[];
  updated: { before: RouteJson; after: RouteJson }[];
  deleted: RouteJson[];
  unchanged: number;
}
interface ErrorJson {
  code: string;
  message: string;
  details: { field?: string; reason: string }[];
}

async function call(workspace: string, method: string, path: string, body?: unknown, scopes?: string[]): Promise<Response> {
  const headers: Record<string, string> = { ...(await stack.auth(workspace, scopes ? { scope: scopes.join(' ') } : {})) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${stack.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function ok<T = Body>(response: Response, status = 200): Promise<T> {
  const body = await json<T>(response);
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function refused(response: Response, status: number, code: string): Promise<ErrorJson> {
  const body = await json<ErrorJson>(response);
  if (response.status !== status || body.code !== code)
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const apply = (ws: string, body: unknown) => call(ws, 'POST', '/v1/routing:apply', body);
const route = (method: string, path: string, handler = 'h') => ({ method, path, handler });
const paths = (routes: readonly RouteJson[]) => routes.map((r) => `${r.method} ${r.path} ${r.handler} ${r.owner}`).sort();

async function table(ws: string, atRevision?: number): Promise<RouteJson[]> {
  const query = atRevision === undefined ? '' : `?atRevision=${atRevision}`;
  return (await ok<{ routes: RouteJson[] }>(await call(ws, 'GET', `/v1/routing${query}`))).routes;
}

test('a single route takes an owner on create and update; a bad one is 400 naming owner', async (t) => {
  const ws = freshWorkspace();
  const created = await ok<RouteJson>(await call(ws, 'POST', '/v1/routing', { ...route('GET', '/a'), owner: 'team-a' }), 201);
  t.is(created.owner, 'team-a');
  t.is((await ok<RouteJson>(await call(ws, 'POST', '/v1/routing', route('GET', '/b')), 201)).owner, '');
  const changed = await ok<RouteJson>(await call(ws, 'PATCH', `/v1/routing/${created.id}`, { owner: '' }));
  t.is(changed.owner, '');
  const bad = await refused(await call(ws, 'POST', '/v1/routing', { ...route('GET', '/c'), owner: ' spaced' }), 400, 'invalid_argument');
  t.deepEqual(
    bad.details.map((d) => d.field),
    ['owner'],
  );
});

test('apply creates, updates and prunes the owner’s routes in one revision; the same table again makes none', async (t) => {
  const ws = freshWorkspace();
  await ok(await call(ws, 'POST', '/v1/routing', route('GET', '/mine')), 201);
  const first = await ok<ApplyJson>(await apply(ws, { owner: 'pay', routes: [route('GET', '/pay/:id'), route('POST', '/pay')] }));
  t.is(first.revision, 2);
  t.deepEqual(paths(first.created), ['GET /pay/:id h pay', 'POST /pay h pay']);
  t.deepEqual([first.updated.length, first.deleted.length, first.unchanged], [0, 0, 0]);

  const dry = await ok<ApplyJson>(
    await apply(ws, { owner: 'pay', prune: true, dryRun: true, routes: [{ ...route('GET', '/pay/:payment'), handler: 'get' }] }),
  );
  t.is(dry.revision, 2, 'a dry run answers the revision it planned against');
  t.deepEqual(paths(dry.deleted), ['POST /pay h pay']);
  t.is((await table(ws)).length, 3, 'and writes nothing');

  const second = await ok<ApplyJson>(
    await apply(ws, { owner: 'pay', prune: true, expectedRevision: 2, routes: [{ ...route('GET', '/pay/:payment'), handler: 'get' }] }),
  );
  t.is(second.revision, 3);
  t.deepEqual(
    second.updated.map((u) => `${u.before.path} ${u.before.handler} -> ${u.after.path} ${u.after.handler} ${u.before.id === u.after.id}`),
    ['/pay/:id h -> /pay/:payment get true'],
  );
  t.deepEqual(paths(second.deleted), ['POST /pay h pay']);
  t.deepEqual(paths(await table(ws)), ['GET /mine h ', 'GET /pay/:payment get pay'], "the route without an owner stays: it is not pay's");

  const again = await ok<ApplyJson>(
    await apply(ws, { owner: 'pay', prune: true, routes: [{ ...route('GET', '/pay/:payment'), handler: 'get' }] }),
  );
  t.deepEqual(again, { revision: 3, created: [], updated: [], deleted: [], unchanged: 1 });
});

test('apply names every bad entry by index, from the JSON types and from the grammar, and writes nothing', async (t) => {
  const ws = freshWorkspace();
  const types = await refused(
    await apply(ws, { routes: [route('GET', '/ok'), { method: 7, path: '/x', handler: 'h' }, { ...route('GET', '/y'), colour: 'red' }] }),
    400,
    'invalid_argument',
  );
  t.deepEqual(types.details.map((d) => d.field).sort(), ['routes[1].method', 'routes[2].colour']);
  const grammar = await refused(
    await apply(ws, { routes: [route('GET', '/ok'), route('GET', 'no-slash'), route('BREW', '/x'), route('GET', '/ok/')] }),
    400,
    'invalid_argument',
  );
  t.deepEqual(grammar.details.map((d) => d.field).sort(), ['routes[1].path', 'routes[2].method', 'routes[3].path']);
  const shapes = await refused(await apply(ws, { routes: [route('GET', '/u/:id'), route('GET', '/u/:uid')] }), 400, 'invalid_argument');
  t.deepEqual(
    shapes.details.map((d) => d.field),
    ['routes[1].path'],
  );
  const whole = await refused(await apply(ws, { routes: 'all of them', prune: 'yes' }), 400, 'invalid_argument');
  t.deepEqual(whole.details.map((d) => d.field).sort(), ['prune', 'routes']);
  t.deepEqual(await table(ws), []);
});

test('apply: a stale expectedRevision is 409 aborted naming the current revision; another owner’s shape is 409 naming the owner', async (t) => {
  const ws = freshWorkspace();
  await ok(await apply(ws, { owner: 'team-a', routes: [route('GET', '/shared')] }));
  const stale = await refused(await apply(ws, { owner: 'team-b', expectedRevision: 0, routes: [route('GET', '/b')] }), 409, 'aborted');
  t.regex(stale.message, /revision 1\b/);
  t.deepEqual(stale.details, [{ field: 'expectedRevision', reason: 'the route table is at revision 1' }]);
  const taken = await refused(
    await apply(ws, { owner: 'team-b', routes: [route('GET', '/b'), route('GET', '/shared')] }),
    409,
    'already_exists',
  );
  t.regex(taken.message, /team-a/);
  t.is(taken.details[0]?.field, 'routes[1].path');
  t.deepEqual(paths(await table(ws)), ['GET /shared h team-a']);
  const reader = await refused(await call(ws, 'POST', '/v1/routing:apply', { routes: [] }, ['routes:read']), 403, 'permission_denied');
  t.truthy(reader.message);
});

test('the change log pages whole revisions with actor, owner, kind, before and after; older than the history is 400', async (t) => {
  const ws = freshWorkspace();
  await ok(await apply(ws, { owner: 'o', routes: [route('GET', '/a'), route('GET', '/b')] }));
  const a = (await table(ws)).find((r) => r.path === '/a')!;
  await ok(await call(ws, 'PATCH', `/v1/routing/${a.id}`, { handler: 'h2' }));
  await ok(await call(ws, 'DELETE', `/v1/routing/${a.id}`), 204).catch(() => undefined);
  const first = await ok<{ changes: Body[]; nextPageToken: string }>(await call(ws, 'GET', '/v1/routing/changes?pageSize=1'));
  t.deepEqual(
    first.changes.map((c) => `${String(c['revision'])} ${String(c['kind'])} ${String(c['owner'])} ${c['before'] === null}`),
    ['1 create o true', '1 create o true'],
  );
  t.regex(String(first.changes[0]?.['actor']), /.+/);
  t.regex(String(first.changes[0]?.['time']), /^\d{4}-\d\d-\d\dT.*Z$/);
  const rest = await ok<{ changes: Body[]; nextPageToken: string }>(
    await call(ws, 'GET', `/v1/routing/changes?pageToken=${encodeURIComponent(first.nextPageToken)}`),
  );
  t.deepEqual(
    rest.changes.map((c) => `${String(c['revision'])} ${String(c['kind'])} ${c['after'] === null}`),
    ['2 update false', '3 delete true'],
  );
  t.is(rest.nextPageToken, '');
  for (let i = 0; i < 4; i++) await ok(await call(ws, 'POST', '/v1/routing', route('GET', `/n${i}`)), 201);
  const old = await refused(await call(ws, 'GET', '/v1/routing/changes?sinceRevision=1'), 400, 'invalid_argument');
  t.is(old.details[0]?.field, 'sinceRevision');
  t.regex(old.message, /goes back to revision 3\b/);
  await refused(await call(ws, 'GET', '/v1/routing/changes?sinceRevision=x'), 400, 'invalid_argument');
});

test('list atRevision is the table then; rollback makes it current again as one new revision', async (t) => {
  const ws = freshWorkspace();
  await ok(await apply(ws, { routes: [route('GET', '/a'), route('GET', '/b')] }));
  await ok(await apply(ws, { prune: true, routes: [{ ...route('GET', '/a'), handler: 'changed' }, route('GET', '/c')] }));
  t.deepEqual(paths(await table(ws, 1)), ['GET /a h ', 'GET /b h ']);
  t.deepEqual(paths(await table(ws, 0)), []);
  const ahead = await refused(await call(ws, 'GET', '/v1/routing?atRevision=3'), 400, 'invalid_argument');
  t.is(ahead.details[0]?.field, 'atRevision');

  const dry = await ok<ApplyJson>(await call(ws, 'POST', '/v1/routing:rollback', { revision: 1, dryRun: true }));
  t.is(dry.revision, 2);
  const rolled = await ok<ApplyJson>(await call(ws, 'POST', '/v1/routing:rollback', { revision: 1, expectedRevision: 2 }));
  t.is(rolled.revision, 3);
  t.deepEqual(paths(rolled.created), ['GET /b h ']);
  t.deepEqual(paths(rolled.deleted), ['GET /c h ']);
  t.deepEqual(
    rolled.updated.map((u) => u.after.handler),
    ['h'],
  );
  t.deepEqual(paths(await table(ws)), paths(await table(ws, 1)));
  await refused(await call(ws, 'POST', '/v1/routing:rollback', { revision: 1, expectedRevision: 2 }), 409, 'aborted');
  const bad = await refused(await call(ws, 'POST', '/v1/routing:rollback', { revision: -1 }), 400, 'invalid_argument');
  t.is(bad.details[0]?.field, 'revision');
});

test('the watch marks the changes of a revision before its last, and gives only the last an id to resume from', async (t) => {
  const ws = freshWorkspace();
  await ok(await call(ws, 'POST', '/v1/routing', route('GET', '/first')), 201);
  const abort = new AbortController();
  const response = await fetch(`${stack.url}/v1/routing:watch?sinceRevision=1`, { headers: await stack.auth(ws), signal: abort.signal });
  t.is(response.status, 200);
  await ok(await apply(ws, { routes: [route('GET', '/first'), route('GET', '/a'), route('GET', '/b'), route('GET', '/c')] }));
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body!) {
    text += decoder.decode(chunk, { stream: true });
    if (/"path":"\/c"/.test(text) && text.endsWith('\n\n')) break;
  }
  abort.abort();
  const frames = text
    .split('\n\n')
    .filter((frame) => frame.includes('event: upsert'))
    .map((frame) => {
      const id = /^id: (\d+)$/m.exec(frame)?.[1] ?? '-';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as { route: RouteJson; moreInRevision?: boolean };
      return `${data.route.path} id=${id} more=${data.moreInRevision === true}`;
    });
  t.deepEqual(frames, ['/a id=- more=true', '/b id=- more=true', '/c id=2 more=false']);
});

test('Connect: ApplyRoutes and ListRouteChanges answer as over REST, owner included', async (t) => {
  const ws = freshWorkspace();
  const client = createSwitchyardClient({ baseUrl: stack.url, protocol: 'connect', token: await stack.token(ws) });
  const result = await client.routes.applyRoutes({
    owner: 'rpc',
    routes: [{ ...route('GET', '/rpc'), middleware: [], owner: '' }],
    prune: false,
    dryRun: false,
  });
  t.is(Number(result.revision), 1);
  t.deepEqual(
    result.created.map((r) => `${r.path} ${r.owner}`),
    ['/rpc rpc'],
  );
  const changes = await client.routes.listRouteChanges({ sinceRevision: 0n, pageSize: 0, pageToken: '' });
  t.deepEqual(
    changes.changes.map((c) => `${c.kind} ${c.owner} ${c.after?.path}`),
    ['create rpc /rpc'],
  );
});
