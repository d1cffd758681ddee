import test from 'ava';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import type { DispatchContext, NativeContext } from './context.js';
import { ErrorAnswer } from './error-answer.js';
import { FedTable, silent } from './table-test-support.js';

/** Dispatches like an adapter does: the answer the chain gives, the error answer, or 'unmatched'. */
async function dispatch(dispatcher: Dispatcher, method: string, path: string): Promise<unknown> {
  const ctx = dispatcher.begin(undefined, undefined, method, path);
  if (ctx === undefined) return 'unmatched';
  if (ctx instanceof ErrorAnswer) return ctx;
  try {
    return await dispatcher.run(ctx);
  } catch (error) {
    return dispatcher.failed(error, ctx);
  }
}

test("runs the matched record's handler with its params, route and the table revision", async (t) => {
  const fed = new FedTable([{ method: 'GET', path: '/users/:id', middleware: [], handler: 'getUser' }]);
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { getUser: (ctx: DispatchContext) => ({ id: ctx.params['id'], handler: ctx.route.handler, revision: ctx.revision }) },
  });
  t.deepEqual(await dispatch(dispatcher, 'GET', '/users/42'), { id: '42', handler: 'getUser', revision: 1 });
  t.deepEqual(
    await dispatch(dispatcher, 'HEAD', '/users/7'),
    { id: '7', handler: 'getUser', revision: 1 },
    'HEAD matches GET as in the core',
  );
  t.is(await dispatch(dispatcher, 'POST', '/users/42'), 'unmatched');
  t.is(await dispatch(dispatcher, 'GET', '/nope'), 'unmatched');
  const malformed = await dispatch(dispatcher, 'GET', '/users/%E0%A4%A');
  t.true(malformed instanceof ErrorAnswer);
  t.is((malformed as ErrorAnswer).status, 400);
});

test("middleware run in the record's order, onion style, and one may answer and stop", async (t) => {
  const log: string[] = [];
  const fed = new FedTable([
    { method: 'GET', path: '/a', middleware: ['outer', 'inner'], handler: 'show' },
    { method: 'GET', path: '/b', middleware: ['inner', 'outer'], handler: 'show' },
    { method: 'GET', path: '/c', middleware: ['outer', 'deny', 'inner'], handler: 'show' },
  ]);
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { show: () => (log.push('handler'), 'body') },
    middleware: {
      outer: async (_ctx, next) => {
        log.push('outer before');
        const answer = await next();
        log.push('outer after');
        return `outer(${String(answer)})`;
      },
      inner: async (_ctx, next) => {
        log.push('inner before');
        const answer = await next();
        log.push('inner after');
        return `inner(${String(answer)})`;
      },
      deny: () => (log.push('deny'), 'denied'),
    },
  });
  t.is(await dispatch(dispatcher, 'GET', '/a'), 'outer(inner(body))');
  t.deepEqual(log.splice(0), ['outer before', 'inner before', 'handler', 'inner after', 'outer after']);
  t.is(await dispatch(dispatcher, 'GET', '/b'), 'inner(outer(body))');
  t.deepEqual(log.splice(0), ['inner before', 'outer before', 'handler', 'outer after', 'inner after']);
  t.is(await dispatch(dispatcher, 'GET', '/c'), 'outer(denied)');
  t.deepEqual(log.splice(0), ['outer before', 'deny', 'outer after'], 'neither inner nor the handler ran');
});

test('state set by middleware reaches the handler; headers set after next are kept', async (t) => {
  const fed = new FedTable([{ method: 'GET', path: '/me', middleware: ['auth', 'stamp'], handler: 'me' }]);
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { me: (ctx) => ({ user: ctx.state['user'] }) },
    middleware: {
      auth: (ctx, next) => ((ctx.state['user'] = 'ada'), next()),
      stamp: async (ctx, next) => {
        const answer = await next();
        ctx.setHeader('x-revision', String(ctx.revision));
        return answer;
      },
    },
  });
  const ctx = dispatcher.begin(undefined, undefined, 'GET', '/me') as DispatchContext<NativeContext>;
  t.deepEqual(await dispatcher.run(ctx), { user: 'ada' });
  t.deepEqual(ctx.headers, [['x-revision', '1']]);
});

test('a request keeps the revision it started with; a change lands for the next request', async (t) => {
  const fed = new FedTable();
  const route = fed.upsert({ method: 'GET', path: '/x', middleware: ['gate'], handler: 'old' });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { old: (ctx) => `old@${ctx.revision}`, new: (ctx) => `new@${ctx.revision}` },
    middleware: { gate: async (_ctx, next) => (await gate, next()), plain: (_ctx, next) => next() },
  });
  const first = dispatch(dispatcher, 'GET', '/x');
  fed.upsert({ method: 'GET', path: '/x', middleware: ['plain'], handler: 'new' }, route.id);
  t.is(await dispatch(dispatcher, 'GET', '/x'), 'new@3');
  open();
  t.is(await first, 'old@2', 'the middleware and handler of revision 2, not a mix');
  fed.delete(route.id);
  t.is(await dispatch(dispatcher, 'GET', '/x'), 'unmatched');
});

test('a revision of several records (an apply) is dispatched whole: none of it before its last record, every record checked', async (t) => {
  const fed = new FedTable();
  const reported: string[] = [];
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { a: () => 'a', b: () => 'b' },
    onUnknown: (unknown) => reported.push(unknown.route.path),
    logger: silent,
  });
  const seen: unknown[] = [];
  fed.revision(
    [
      { method: 'GET', path: '/a', middleware: [], handler: 'a' },
      { method: 'GET', path: '/gone', middleware: [], handler: 'missing' },
      { method: 'GET', path: '/b', middleware: [], handler: 'b' },
    ],
    () => void seen.push(dispatcher.begin(undefined, undefined, 'GET', '/a')),
  );
  t.deepEqual(seen, [undefined, undefined], 'unmatched until the revision is whole');
  t.is(await dispatch(dispatcher, 'GET', '/a'), 'a');
  t.is(await dispatch(dispatcher, 'GET', '/b'), 'b');
  t.deepEqual(reported, ['/gone'], 'the middle record is checked too');
  t.is(dispatcher.revision, 2);
});

test('a record naming an unregistered handler or middleware is reported when it arrives, listed, and answers 501', async (t) => {
  const fed = new FedTable([{ method: 'GET', path: '/ok', middleware: [], handler: 'show' }]);
  const reported: string[] = [];
  const warnings: string[] = [];
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { show: () => 'ok' },
    middleware: { auth: (_ctx, next) => next() },
    onUnknown: (unknown) => reported.push(`${unknown.route.path}:${unknown.handler ?? '-'}:${unknown.middleware.join(',')}`),
    logger: { warn: (message) => warnings.push(message), error: () => {} },
  });
  t.deepEqual(dispatcher.unknown(), []);
  const missing = fed.upsert({ method: 'GET', path: '/missing', middleware: ['auth', 'audit'], handler: 'constructor' });
  t.deepEqual(reported, ['/missing:constructor:audit'], 'reported at once, before any request; Object.prototype names are not handlers');
  t.regex(
    warnings[0]!,
    /route rt_\w+ \(GET \/missing\) names handler "constructor" and middleware "audit", which this service does not provide/,
  );
  t.deepEqual(
    dispatcher.unknown().map((unknown) => unknown.route.id),
    [missing.id],
  );

  const answer = (await dispatch(dispatcher, 'GET', '/missing')) as ErrorAnswer;
  t.is(answer.status, 501);
  t.deepEqual(answer.body, {
    code: 'unimplemented',
    message: `route ${missing.id} (GET /missing) names handler "constructor" and middleware "audit", which this service does not provide`,
    details: [
      { field: 'handler', reason: '"constructor" is not registered' },
      { field: 'middleware', reason: '"audit" is not registered' },
    ],
  });
  t.is(await dispatch(dispatcher, 'GET', '/ok'), 'ok', 'the other records still serve');
  t.deepEqual(dispatcher.metrics(), { unknownReported: 1, unimplementedAnswered: 1, failures: 0 });

  fed.upsert({ method: 'GET', path: '/missing', middleware: ['auth'], handler: 'show' }, missing.id);
  t.deepEqual(dispatcher.unknown(), [], 'fixed by a change');
  t.is(await dispatch(dispatcher, 'GET', '/missing'), 'ok');
  t.is(reported.length, 1);
});

test('records already in the table when the dispatcher starts are checked too, and a replayed snapshot is not reported again', (t) => {
  const fed = new FedTable([{ method: 'GET', path: '/a', middleware: [], handler: 'nope' }]);
  let reports = 0;
  const dispatcher = createDispatcher({ table: fed.table, handlers: {}, onUnknown: () => reports++, logger: silent });
  t.is(reports, 1);
  const [route] = fed.table.routes();
  fed.table.apply({ type: 'reset', revision: 5 });
  fed.table.apply({ type: 'upsert', revision: 5, route: route! });
  fed.table.apply({ type: 'synced', revision: 5 });
  t.is(reports, 1);
  t.is(dispatcher.unknown().length, 1);
  // Gone from a snapshot (deleted while the source was away: no delete event), then back: news again.
  fed.table.apply({ type: 'reset', revision: 6 });
  fed.table.apply({ type: 'synced', revision: 6 });
  t.deepEqual(dispatcher.unknown(), []);
  fed.table.apply({ type: 'upsert', revision: 7, route: route! });
  t.is(reports, 2);
});

test('a throwing or rejecting handler or middleware becomes a 500 in the error shape, reported to onError', async (t) => {
  const fed = new FedTable([
    { method: 'GET', path: '/sync', middleware: [], handler: 'throws' },
    { method: 'GET', path: '/async', middleware: ['rejects'], handler: 'throws' },
    { method: 'GET', path: '/twice', middleware: ['twice'], handler: 'ok' },
  ]);
  const errors: string[] = [];
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: {
      throws: () => {
        throw new Error('boom');
      },
      ok: () => 'ok',
    },
    middleware: {
      rejects: async () => {
        throw new Error('bad gate');
      },
      twice: async (_ctx, next) => (await next(), next()),
    },
    onError: (error, ctx) => errors.push(`${ctx.route.path}: ${(error as Error).message}`),
  });
  for (const path of ['/sync', '/async', '/twice']) {
    const answer = (await dispatch(dispatcher, 'GET', path)) as ErrorAnswer;
    t.is(answer.status, 500);
    t.deepEqual(answer.body, { code: 'internal', message: 'internal error', details: [] }, 'no message of the cause reaches the client');
  }
  t.deepEqual(errors, [
    '/sync: boom',
    '/async: bad gate',
    '/twice: middleware called next() twice for route rt_00000000000000000000000003',
  ]);
  t.is(dispatcher.metrics().failures, 3);
});

test('close stops following the table: later requests get the revision it had then', async (t) => {
  const fed = new FedTable([{ method: 'GET', path: '/a', middleware: [], handler: 'a' }]);
  const dispatcher = createDispatcher({ table: fed.table, handlers: { a: () => 'a' } });
  t.is(await dispatch(dispatcher, 'GET', '/a'), 'a');
  // A change no request has seen yet, then close: the change is in, what comes after is not.
  fed.upsert({ method: 'GET', path: '/b', middleware: [], handler: 'a' });
  dispatcher.close();
  fed.upsert({ method: 'GET', path: '/c', middleware: [], handler: 'a' });
  t.is(await dispatch(dispatcher, 'GET', '/b'), 'a');
  t.is(await dispatch(dispatcher, 'GET', '/c'), 'unmatched');
  t.is(dispatcher.revision, 2);
  t.is(fed.table.revision, 3);
});

test('a record the core cannot compile is left out and logged; the rest of the table serves', async (t) => {
  const fed = new FedTable([
    { method: 'GET', path: '/a', middleware: [], handler: 'a' },
    { method: 'GET', path: '/b/{id}', middleware: [], handler: 'a' },
  ]);
  const errors: string[] = [];
  const dispatcher = createDispatcher({
    table: fed.table,
    handlers: { a: () => 'a' },
    logger: { warn: () => {}, error: (message) => errors.push(message) },
  });
  t.is(await dispatch(dispatcher, 'GET', '/a'), 'a');
  t.is(await dispatch(dispatcher, 'GET', '/b/1'), 'unmatched');
  t.is(errors.length, 1);
  t.regex(errors[0]!, /route rt_\w+ \(GET \/b\/\{id\}\) cannot be served by this version of @switchyard\/core and is left out: /);
});
