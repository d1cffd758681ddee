// Route tables that live, end to end: two service instances (each with its
// gateway) on one MySQL database. A watcher on instance B sees what is done
// through instance A, in order (how soon, within the contract's second, is
// bench/'s route-sync-cross-instance-polling goal), resumes after a disconnect with only
// what it missed, gets a snapshot when its revision is too old, follows the
// watched table through the loss of its instance, and never sees another
// workspace's events. Skipped only when MySQL is unreachable and not required.
import test from 'ava';
import { SyncedRouteTable, type Route, type RouteEvent } from '@switchyard/core';
import { watchRouteTable } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { mysqlS3Deployment, type Deployment } from '../hardening/support/deployments.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';
import { EVENT_DEADLINE_MS, SseWatch } from './support/sse-watch.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';

/** Changes kept per workspace: a watcher 1,000 behind replays them; one 1,210 behind gets a snapshot. */
const HISTORY = 1_200;

const mysqlTest = await testNeedingMysql();

let deployment: Deployment | undefined;
let a: Stack;
let b: Stack;

test.before(async () => {
  deployment = stillReachable(await mysqlS3Deployment());
  const { CDN_URL: _cdn, ...env } = deployment.env;
  const shared = { ...env, ROUTE_HISTORY: String(HISTORY), WATCH_HEARTBEAT_MS: '1000' };
  a = await startStack(shared);
  b = await startStack(shared);
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await deployment?.cleanup();
});

async function send(
  stack: Stack,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>) };
}

/** Every route of the workspace, through ListRoutes pages. */
async function listAll(stack: Stack, headers: Record<string, string>): Promise<Record<string, unknown>[]> {
  const routes: Record<string, unknown>[] = [];
  let token = '';
  do {
    const { json } = await send(stack, 'GET', `/v1/routing?pageSize=100&pageToken=${encodeURIComponent(token)}`, headers);
    routes.push(...(json['routes'] as Record<string, unknown>[]));
    token = json['nextPageToken'] as string;
  } while (token !== '');
  return routes;
}

mysqlTest.serial(
  'a watcher on instance B sees a route created, updated and deleted through instance A, in order, each change seen before the next is made',
  async (t) => {
    const headers = await a.auth(freshWorkspace('watch'));
    const watch = new SseWatch(`${b.url}/v1/routing:watch`, headers);
    await watch.waitFor((e) => e.event === 'synced');
    // Each change is awaited before the next is made: what arrives is this change, not a later one.
    const inTurn = async (change: () => Promise<unknown>, matches: (e: SseWatch['events'][number]) => boolean) => {
      const from = watch.events.length;
      await change();
      await watch.waitFor(matches, from);
    };
    let id = '';
    await inTurn(
      async () =>
        (id = (await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: '/users/:id', handler: 'show' })).json['id'] as string),
      (e) => e.event === 'upsert',
    );
    await inTurn(
      () => send(a, 'PATCH', `/v1/routing/${id}`, headers, { middleware: ['auth'] }),
      (e) => e.event === 'upsert' && (e.data['route'] as { middleware: string[] }).middleware[0] === 'auth',
    );
    await inTurn(
      () => send(a, 'DELETE', `/v1/routing/${id}`, headers),
      (e) => e.event === 'delete',
    );
    await watch.close();
    const changes = watch.events.filter((e) => e.event === 'upsert' || e.event === 'delete');
    t.deepEqual(
      changes.map((e) => [e.event, e.id]),
      [
        ['upsert', '1'],
        ['upsert', '2'],
        ['delete', '3'],
      ],
      'in order, each with its revision as id',
    );
  },
);

/** `count` successful changes through `stack`: creates, updates and deletes, with refused duplicates in between. */
async function churn(stack: Stack, headers: Record<string, string>, count: number, prefix: string): Promise<void> {
  const ids: string[] = [];
  let changes = 0;
  for (let i = 0; changes < count; i++) {
    const op = i % 4;
    const result =
      op === 0 || ids.length === 0
        ? await send(stack, 'POST', '/v1/routing', headers, { method: 'GET', path: `/${prefix}/${i % 300}/:x`, handler: 'h' })
        : op === 3
          ? await send(stack, 'DELETE', `/v1/routing/${ids.shift()}`, headers)
          : await send(stack, 'PATCH', `/v1/routing/${ids[i % ids.length]}`, headers, { handler: `h${i}` });
    if (result.status === 201) ids.push(result.json['id'] as string);
    if (result.status < 300) changes += 1;
  }
}

/** Watches from `since` until an event with revision `until` (or `synced`, for a snapshot) arrived. */
async function watchUntil(stack: Stack, headers: Record<string, string>, since: number, until: number): Promise<SseWatch> {
  const watch = new SseWatch(`${stack.url}/v1/routing:watch`, { ...headers, 'last-event-id': String(since) });
  await watch.waitFor((e) => Number(e.id) === until || e.event === 'synced');
  await watch.close();
  return watch;
}

mysqlTest.serial(
  'a watcher that was away during 1,000 changes resumes with exactly those and ends with the same table as a fresh snapshot',
  async (t) => {
    const headers = await a.auth(freshWorkspace('resume'));
    for (let i = 0; i < 20; i++) await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: `/base/${i}`, handler: 'h' });
    const table = new SyncedRouteTable();
    const first = new SseWatch(`${b.url}/v1/routing:watch`, headers);
    await first.waitFor((e) => e.event === 'synced');
    await first.close();
    for (const e of first.events) table.apply(eventOf(e));
    const away = table.revision;
    await churn(a, headers, 1_000, 'r');
    const resumed = await watchUntil(b, headers, away, away + 1_000);
    t.false(
      resumed.events.some((e) => e.event === 'reset'),
      'within the history: no snapshot',
    );
    t.deepEqual(
      resumed.events.filter((e) => e.id !== undefined).map((e) => Number(e.id)),
      Array.from({ length: 1_000 }, (_, i) => away + i + 1),
      'every missed change, once, in order',
    );
    for (const e of resumed.events) table.apply(eventOf(e));
    const fresh = new SyncedRouteTable();
    for (const e of (await watchUntil(b, headers, 0, -1)).events) fresh.apply(eventOf(e));
    t.is(table.revision, fresh.revision);
    t.deepEqual(table.routes().map(summary).sort(), fresh.routes().map(summary).sort(), 'the same table as a fresh snapshot');
    t.deepEqual(
      table
        .routes()
        .map((route) => route.id)
        .sort(),
      (await listAll(a, headers)).map((route) => route['id'] as string).sort(),
      'and as ListRoutes',
    );
  },
);

mysqlTest.serial('a watcher whose revision is older than the kept history gets a fresh snapshot', async (t) => {
  const headers = await a.auth(freshWorkspace('old'));
  await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: '/first', handler: 'h' });
  await churn(a, headers, HISTORY + 10, 'o');
  const resumed = await watchUntil(b, headers, 1, -1);
  t.is(resumed.events[0]?.event, 'reset', 'a snapshot, not a replay');
  t.is(resumed.events.at(-1)?.event, 'synced');
  t.is(Number(resumed.events.at(-1)?.id), HISTORY + 11);
  const table = new SyncedRouteTable();
  for (const e of resumed.events) table.apply(eventOf(e));
  t.deepEqual(
    table
      .routes()
      .map((route) => route.id)
      .sort(),
    (await listAll(a, headers)).map((route) => route['id'] as string).sort(),
  );
});

mysqlTest.serial('resuming within the history replays exactly the missed changes; the table equals ListRoutes', async (t) => {
  const headers = await a.auth(freshWorkspace('replay'));
  // One route first: a watch from revision 0 would be a snapshot by definition.
  await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: '/first', handler: 'h' });
  const table = new SyncedRouteTable();
  const first = new SseWatch(`${b.url}/v1/routing:watch`, headers);
  await first.waitFor((e) => e.event === 'synced');
  await first.close();
  for (const e of first.events) table.apply(eventOf(e));
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    if (i % 3 === 2) await send(a, 'DELETE', `/v1/routing/${ids.shift()}`, headers);
    else ids.push((await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: `/q/${i}`, handler: 'h' })).json['id'] as string);
  }
  const resumed = new SseWatch(`${b.url}/v1/routing:watch?sinceRevision=${table.revision}`, headers);
  await resumed.waitFor((e) => Number(e.id) === 301);
  await resumed.close();
  t.false(
    resumed.events.some((e) => e.event === 'reset'),
    'no snapshot',
  );
  t.deepEqual(
    resumed.events.filter((e) => e.id !== undefined).map((e) => Number(e.id)),
    Array.from({ length: 300 }, (_, i) => i + 2),
  );
  for (const e of resumed.events) table.apply(eventOf(e));
  t.deepEqual(
    table
      .routes()
      .map((route) => route.id)
      .sort(),
    (await listAll(a, headers)).map((route) => route['id'] as string).sort(),
  );
});

mysqlTest.serial(
  "a watcher never receives another workspace's events; a bad token or revision is refused before the stream starts",
  async (t) => {
    const mine = await a.auth(freshWorkspace('mine'));
    const theirs = await a.auth(freshWorkspace('theirs'));
    const watch = new SseWatch(`${b.url}/v1/routing:watch`, mine);
    await watch.waitFor((e) => e.event === 'synced');
    for (let i = 0; i < 20; i++) await send(a, 'POST', '/v1/routing', theirs, { method: 'GET', path: `/theirs/${i}`, handler: 'h' });
    await send(a, 'POST', '/v1/routing', mine, { method: 'GET', path: '/mine', handler: 'h' });
    const mineSeen = await watch.waitFor((e) => e.event === 'upsert');
    await watch.close();
    t.is((mineSeen.data['route'] as { path: string }).path, '/mine');
    t.deepEqual(watch.events.filter((e) => e.event === 'upsert').length, 1, 'only its own workspace');
    t.is(Number(mineSeen.id), 1, "its own workspace's revision");

    const refused = await fetch(`${b.url}/v1/routing:watch`, { headers: { authorization: 'Bearer nope' } });
    t.is(refused.status, 401);
    t.like(await refused.json(), { code: 'unauthenticated' });
    const noScope = await fetch(`${b.url}/v1/routing:watch`, { headers: await a.auth(freshWorkspace(), { scope: 'routes:write' }) });
    t.is(noScope.status, 403);
    // Only decimal digits: what Number() would take from hex, a fraction or a space is refused too.
    for (const bad of ['x', '-1', '0x1', '1.0', '%205', '1e3', '']) {
      t.is((await fetch(`${b.url}/v1/routing:watch?sinceRevision=${bad}`, { headers: mine })).status, 400, `sinceRevision=${bad}`);
    }
    t.is((await fetch(`${b.url}/v1/routing:watch`, { headers: { ...mine, 'last-event-id': '0x2' } })).status, 400, 'Last-Event-ID too');
  },
);

mysqlTest.serial(
  'watchRouteTable: ready, matches locally, follows changes, and converges through another instance when its own goes away',
  async (t) => {
    const workspace = freshWorkspace('client');
    const headers = await a.auth(workspace);
    await send(a, 'POST', '/v1/routing', headers, { method: 'GET', path: '/users/:id', handler: 'show' });
    const { CDN_URL: _cdn, ...env } = deployment!.env;
    // A third instance the watcher starts on, stopped under it.
    const doomed = await startStack({ ...env, ROUTE_HISTORY: String(HISTORY), WATCH_HEARTBEAT_MS: '1000' });
    const watched = watchRouteTable({
      url: [doomed.url, b.url],
      token: await a.token(workspace),
      minBackoffMs: 20,
      maxBackoffMs: 200,
      idleTimeoutMs: 5_000,
    });
    try {
      await watched.ready;
      t.is(watched.match('GET', '/users/7')?.params['id'], '7');
      const changed = new Promise<RouteEvent>((resolve) => watched.onChange(resolve));
      await send(a, 'POST', '/v1/routing', headers, { method: 'POST', path: '/users', handler: 'create' });
      t.is((await changed).type, 'upsert');
      t.is(watched.match('POST', '/users')?.route.handler, 'create');

      await doomed.stop();
      // While it reconnects, the last table keeps serving.
      t.is(watched.match('GET', '/users/8')?.route.handler, 'show');
      await send(a, 'DELETE', `/v1/routing/${watched.match('POST', '/users')!.route.id}`, headers);
      await eventually(() => watched.match('POST', '/users') === undefined, {
        timeout: EVENT_DEADLINE_MS,
        message: 'the delete arrived through the other instance',
      });
      t.true(watched.connected);
      t.deepEqual(
        watched.routes().map((route) => route.path),
        ['/users/:id'],
      );
    } finally {
      watched.close();
    }
  },
);

function summary(route: Route): string {
  return JSON.stringify([route.id, route.method, route.path, route.middleware, route.handler, route.revision]);
}

/** An SSE event as the library's RouteEvent. */
function eventOf(e: SseWatch['events'][number]): RouteEvent {
  const revision = e.data['revision'] as number;
  if (e.event === 'upsert') {
    const route = e.data['route'] as Record<string, unknown>;
    return {
      type: 'upsert',
      revision,
      route: {
        ...(route as unknown as Route),
        createdAt: new Date(route['createdAt'] as string),
        updatedAt: new Date(route['updatedAt'] as string),
      },
    };
  }
  if (e.event === 'delete') return { type: 'delete', revision, id: e.data['id'] as string };
  return { type: e.event as 'reset' | 'synced' | 'heartbeat', revision };
}
