// Routes as code at the sizes and races of issue 41's "Done when": a 1,000-route
// apply seen as one revision by an SSE watcher on another gateway and by gRPC;
// an Express app dispatching through watchRouteTable while 20 such applies
// alternate two tables, never answering from a mix; concurrent applies with one
// expectedRevision (REST and two CLIs); two owners and a third tool sharing a
// workspace; a 5,000-route table with bad entries; a rollback 20 revisions back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import express from 'express';
import { createSwitchyardClient, watchRouteTable } from '@switchyard/client';
import { createDispatcher } from '@switchyard/dispatch';
import { expressDispatch } from '@switchyard/dispatch/express';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { spawnCli } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { json } from './support/http.js';
import { EVENT_DEADLINE_MS, SseWatch } from './support/sse-watch.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
/** Another gateway in front of the same service: the watchers and the dispatching app follow it. */
let other: GatewayHandle;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0', ROUTE_HISTORY: '100000' });
  const listener = await listen('127.0.0.1', 0);
  const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), CONSOLE: 'off' });
  other = await startGateway(
    { ...config, cdnUrl: stack.cdnUrl },
    { inProcess: stack.service.inProcess, log: createGatewayLogger('warn', { write: () => {} }), listener, shutdownTimeoutMs: 2_000 },
  );
});
test.after.always(async () => {
  await other?.close();
  await stack?.stop();
});

interface RouteJson {
  id: string;
  method: string;
  path: string;
  handler: string;
  middleware: string[];
  owner: string;
}
interface ApplyJson {
  revision: number;
  created: RouteJson[];
  updated: { before: RouteJson; after: RouteJson }[];
  deleted: RouteJson[];
  unchanged: number;
}
interface Entry {
  method: string;
  path: string;
  handler: string;
  middleware?: string[];
}

async function call(workspace: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { ...(await stack.auth(workspace)) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${stack.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function expectStatus<T>(response: Response, status: number): Promise<T> {
  const body = await json<T>(response);
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const apply = async (ws: string, body: unknown): Promise<ApplyJson> =>
  expectStatus<ApplyJson>(await call(ws, 'POST', '/v1/routing:apply', body), 200);

async function table(ws: string, atRevision?: number): Promise<RouteJson[]> {
  const routes: RouteJson[] = [];
  let token = '';
  do {
    const query = `pageSize=1000&pageToken=${encodeURIComponent(token)}${atRevision === undefined ? '' : `&atRevision=${atRevision}`}`;
    const page = await expectStatus<{ routes: RouteJson[]; nextPageToken: string }>(await call(ws, 'GET', `/v1/routing?${query}`), 200);
    routes.push(...page.routes);
    token = page.nextPageToken;
  } while (token !== '');
  return routes;
}

const shapes = (routes: readonly (Entry & { owner?: string })[]) =>
  routes.map((r) => `${r.method} ${r.path} ${r.handler} [${(r.middleware ?? []).join(',')}] ${r.owner ?? ''}`).sort();

const manyRoutes = (count: number, handler: string, prefix = 'r'): Entry[] =>
  Array.from({ length: count }, (_, i) => ({ method: i % 5 === 0 ? 'POST' : 'GET', path: `/${prefix}/${i}/:id`, handler }));

test.serial(
  'a 1,000-route apply that changes 300, moves 50 and deletes 100 is one revision, on SSE of another gateway and on gRPC',
  async (t) => {
    const ws = freshWorkspace('apply-1000');
    const first = await apply(ws, { owner: 'big', prune: true, routes: manyRoutes(1_000, 'h') });
    t.is(first.created.length, 1_000);

    const headers = await stack.auth(ws);
    const sse = new SseWatch(`${other.url}/v1/routing:watch?sinceRevision=${first.revision}`, headers);
    t.teardown(() => sse.close());
    const grpc = createSwitchyardClient({ baseUrl: `http://${stack.service.address}`, token: await stack.token(ws) });
    t.teardown(() => grpc.close());
    const grpcEvents: { revision: number; kind: string; more: boolean }[] = [];
    const grpcAbort = new AbortController();
    t.teardown(() => grpcAbort.abort());
    void (async () => {
      for await (const event of grpc.routes.watchRoutes({ sinceRevision: BigInt(first.revision) }, { signal: grpcAbort.signal }))
        grpcEvents.push({ revision: Number(event.revision), kind: event.event.case ?? '', more: event.moreInRevision });
    })().catch(() => undefined);

    // 300 handlers changed, 50 paths moved (a delete and a create each), 100 left out and pruned.
    const next = manyRoutes(1_000, 'h').flatMap((entry, i) => {
      if (i >= 900) return [];
      if (i < 300) return [{ ...entry, handler: 'h2' }];
      if (i < 350) return [{ ...entry, path: entry.path.replace('/r/', '/moved/') }];
      return [entry];
    });
    const second = await apply(ws, { owner: 'big', prune: true, routes: next });
    t.is(second.revision, first.revision + 1, 'one revision');
    t.is(second.updated.length, 300);
    t.is(second.created.length, 50);
    t.is(second.deleted.length, 150);
    t.is(second.unchanged, 550);
    const changes = 300 + 50 + 150;

    const isChange = (event: { event: string }) => event.event === 'upsert' || event.event === 'delete';
    await eventually(() => sse.events.filter(isChange).length >= changes, {
      timeout: EVENT_DEADLINE_MS,
      message: `${changes} SSE changes`,
    });
    const sseChanges = sse.events.filter(isChange);
    t.is(sseChanges.length, changes);
    t.true(sseChanges.every((event) => event.data['revision'] === second.revision));
    t.deepEqual(
      sseChanges.flatMap((event, i) => (event.id === undefined ? [] : [i])),
      [changes - 1],
      'only the last change of the revision carries an id to resume from',
    );

    await eventually(() => grpcEvents.filter((e) => e.kind === 'upsert' || e.kind === 'deletedId').length >= changes, {
      timeout: EVENT_DEADLINE_MS,
      message: `${changes} gRPC changes`,
    });
    const grpcChanges = grpcEvents.filter((e) => e.kind === 'upsert' || e.kind === 'deletedId');
    t.true(grpcChanges.every((e) => e.revision === second.revision));
    t.deepEqual(
      grpcChanges.map((e) => e.more),
      [...Array<boolean>(changes - 1).fill(true), false],
      'moreInRevision on every change but the last',
    );
    t.deepEqual(shapes(await table(ws)), shapes(next.map((entry) => ({ ...entry, owner: 'big' }))));
  },
);

test.serial('an Express app dispatching by watchRouteTable while 20 applies alternate two tables never answers from a mix', async (t) => {
  const ws = freshWorkspace('no-mix');
  const routes = (handler: 'A' | 'B') => manyRoutes(1_000, handler, 'mix');
  /** Which table each revision holds, by the applies' answers. */
  const tableAt = new Map<number, 'A' | 'B'>();
  tableAt.set((await apply(ws, { prune: true, routes: routes('A') })).revision, 'A');

  const watched = watchRouteTable({ url: other.url, token: await stack.token(ws), minBackoffMs: 50 });
  t.teardown(() => watched.close());
  await watched.ready;
  const answer = (letter: 'A' | 'B') => (ctx: { revision: number }) => ({ table: letter, revision: ctx.revision });
  const dispatcher = createDispatcher({ table: watched, handlers: { A: answer('A'), B: answer('B') }, middleware: {}, logger: null });
  t.teardown(() => dispatcher.close());
  const app = express();
  app.use(expressDispatch(dispatcher));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // About 200 requests a second to routes spread over the table, until the applies are done.
  const answers: { table: string; revision: number }[] = [];
  let applying = true;
  const load = (async () => {
    for (let i = 0; applying; i++) {
      const started = performance.now();
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const n = ((i * 10 + j) * 37) % 1_000;
          const response = await fetch(`${appUrl}/mix/${n}/x`, { method: n % 5 === 0 ? 'POST' : 'GET' });
          return (await response.json()) as { table: string; revision: number };
        }),
      );
      answers.push(...batch);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (performance.now() - started))));
    }
  })();
  for (let i = 0; i < 20; i++) {
    const letter = i % 2 === 0 ? 'B' : 'A';
    const applied = await apply(ws, { prune: true, routes: routes(letter) });
    tableAt.set(applied.revision, letter);
    // The app follows: some requests land on this revision before the next apply.
    await eventually(() => answers.some((a) => a.revision === applied.revision), {
      timeout: EVENT_DEADLINE_MS,
      message: `the app answering from revision ${applied.revision}`,
    });
  }
  applying = false;
  await load;

  t.true(answers.length >= 20 * 10, `${answers.length} answers`);
  const mixed = answers.filter((a) => tableAt.get(a.revision) !== a.table);
  t.deepEqual(mixed, [], "every answer comes from the table of the revision it reports: never one table's handler at another's revision");
  t.is(new Set(answers.map((a) => a.revision)).size, 21, 'every revision was served');
});

test.serial(
  'two concurrent applies with one expectedRevision: one wins, the other is 409 with the current revision; the same with two CLIs',
  async (t) => {
    const ws = freshWorkspace('race');
    const base = await apply(ws, { routes: manyRoutes(10, 'h', 'race') });
    const attempts = await Promise.all(
      ['x', 'y'].map((handler) =>
        call(ws, 'POST', '/v1/routing:apply', { expectedRevision: base.revision, prune: true, routes: manyRoutes(200, handler, 'race') }),
      ),
    );
    t.deepEqual(attempts.map((response) => response.status).sort(), [200, 409]);
    const loser = attempts.find((response) => response.status === 409)!;
    const refusal = await json<{ code: string; details: { field: string; reason: string }[] }>(loser);
    t.is(refusal.code, 'aborted');
    t.deepEqual(refusal.details, [{ field: 'expectedRevision', reason: `the route table is at revision ${base.revision + 1}` }]);
    t.is((await table(ws)).length, 200, 'the winner alone was written');

    const dir = await mkdtemp(join(tmpdir(), 'switchyard-race-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const files = await Promise.all(
      ['p', 'q'].map(async (handler) => {
        const file = join(dir, `${handler}.yaml`);
        await writeFile(file, JSON.stringify({ format: 'switchyard.routes/v1', routes: manyRoutes(50, handler, 'cli') }));
        return file;
      }),
    );
    const env = { SWITCHYARD_URL: stack.url, SWITCHYARD_TOKEN: await stack.token(ws) };
    const expected = String(base.revision + 1);
    const runs = await Promise.all(
      files.map((file) => spawnCli(['routes', 'apply', file, '--prune', '--expected-revision', expected], env)),
    );
    t.deepEqual(runs.map((run) => run.code).sort(), [0, 1], runs.map((run) => run.stderr).join('\n'));
    const cliLoser = runs.find((run) => run.code !== 0)!;
    t.regex(cliLoser.stderr, new RegExp(`revision ${base.revision + 2}\\b`));
    t.is((await table(ws)).length, 50);
  },
);

test.serial(
  'two owners share a workspace: each prunes only its own; a collision names the owner; a third tool’s route is left alone',
  async (t) => {
    const ws = freshWorkspace('owners');
    await apply(ws, { owner: 'team-a', prune: true, routes: manyRoutes(5, 'a', 'a') });
    await apply(ws, { owner: 'team-b', prune: true, routes: manyRoutes(5, 'b', 'b') });
    await expectStatus(await call(ws, 'POST', '/v1/routing', { method: 'GET', path: '/by-hand', handler: 'manual' }), 201);

    const aAgain = await apply(ws, { owner: 'team-a', prune: true, routes: manyRoutes(2, 'a', 'a') });
    t.deepEqual(
      aAgain.deleted.map((r) => r.owner),
      ['team-a', 'team-a', 'team-a'],
    );
    const bAgain = await apply(ws, { owner: 'team-b', prune: true, routes: [] });
    t.is(bAgain.deleted.length, 5);
    t.true(bAgain.deleted.every((r) => r.owner === 'team-b'));
    const collision = await call(ws, 'POST', '/v1/routing:apply', { owner: 'team-b', routes: manyRoutes(1, 'b', 'a') });
    t.is(collision.status, 409);
    t.regex((await json<{ message: string }>(collision)).message, /team-a/);
    t.deepEqual(
      shapes(await table(ws)),
      shapes([...manyRoutes(2, 'a', 'a').map((r) => ({ ...r, owner: 'team-a' })), { method: 'GET', path: '/by-hand', handler: 'manual' }]),
    );
  },
);

test.serial(
  'a 5,000-route table with bad entries is 400 naming every bad index, and writes nothing; a repeated apply makes no revision',
  async (t) => {
    const ws = freshWorkspace('bad-5000');
    const good = manyRoutes(5_000, 'h', 'big');
    const before = await apply(ws, { prune: true, routes: good });
    const bad = good.map((entry, i) => {
      if (i === 3) return { ...entry, path: 'no-slash' };
      if (i === 2_500) return { ...entry, method: 'FETCH' };
      if (i === 4_999) return { ...entry, handler: '' };
      return { ...entry, handler: 'changed' };
    });
    const refused = await call(ws, 'POST', '/v1/routing:apply', { prune: true, routes: bad });
    t.is(refused.status, 400);
    const body = await json<{ code: string; details: { field: string }[] }>(refused);
    t.is(body.code, 'invalid_argument');
    t.deepEqual([...new Set(body.details.map((d) => /^routes\[(\d+)\]/.exec(d.field)?.[1]))], ['3', '2500', '4999']);
    const after = await table(ws);
    t.true(
      after.every((r) => r.handler === 'h'),
      'nothing written',
    );
    const again = await apply(ws, { prune: true, routes: good });
    t.is(again.revision, before.revision, 'the same table again: no new revision');
    t.is(again.unchanged, 5_000);
  },
);

test.serial('a rollback 20 revisions back reproduces that table route by route, as a new revision', async (t) => {
  const ws = freshWorkspace('rollback-20');
  const snapshots = new Map<number, string[]>();
  let revision = 0;
  for (let i = 0; i < 25; i++) {
    // Each revision a different table: sizes, handlers, middleware and paths all move.
    const routes = manyRoutes(20 + ((i * 7) % 30), `h${i % 4}`, `t${i % 3}`).map((entry, j) => ({
      ...entry,
      middleware: j % 3 === 0 ? ['auth', `m${i % 5}`] : [],
    }));
    revision = (await apply(ws, { owner: 'deploy', prune: true, routes })).revision;
    snapshots.set(revision, shapes((await table(ws)).map((r) => r)));
  }
  const target = revision - 20;
  t.deepEqual(shapes(await table(ws, target)), snapshots.get(target), 'the table at that revision, as it was then');
  const rolled = await expectStatus<ApplyJson>(
    await call(ws, 'POST', '/v1/routing:rollback', { revision: target, expectedRevision: revision }),
    200,
  );
  t.is(rolled.revision, revision + 1);
  t.deepEqual(shapes(await table(ws)), snapshots.get(target), 'route by route');
});
