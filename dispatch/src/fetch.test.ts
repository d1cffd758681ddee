import test from 'ava';
import { createDispatcher } from './dispatcher.js';
import { fetchHandler } from './fetch.js';
import { FedTable, silent } from './table-test-support.js';

const fed = new FedTable([
  { method: 'GET', path: '/json/:id', middleware: ['stamp'], handler: 'json' },
  { method: 'GET', path: '/text', middleware: [], handler: 'text' },
  { method: 'POST', path: '/created', middleware: [], handler: 'created' },
  { method: 'GET', path: '/response', middleware: ['stamp'], handler: 'response' },
  { method: 'GET', path: '/nothing', middleware: [], handler: 'nothing' },
  { method: 'GET', path: '/fails', middleware: [], handler: 'fails' },
  { method: 'GET', path: '/ghost', middleware: [], handler: 'ghost' },
  { method: 'GET', path: '/unwritable', middleware: [], handler: 'unwritable' },
  { method: 'GET', path: '/bad-header', middleware: ['badHeader'], handler: 'text' },
]);
const dispatcher = createDispatcher({
  table: fed.table,
  logger: silent,
  handlers: {
    json: (ctx) => ({ id: ctx.params['id'] }),
    text: () => 'plain',
    created: (ctx) => ((ctx.status = 201), { ok: true }),
    // A fetched Response's headers are immutable: the stamp must still get on.
    response: async () => Response.redirect('http://example.com/elsewhere', 302),
    nothing: () => undefined,
    fails: async () => {
      throw new Error('no');
    },
    unwritable: () => ({ big: 1n }),
  },
  middleware: {
    badHeader: (ctx, next) => (ctx.setHeader('x-bad', 'line\nbreak'), next()),
    stamp: async (ctx, next) => {
      const answer = await next();
      ctx.setHeader('x-revision', String(ctx.revision));
      return answer;
    },
  },
});
const handle = fetchHandler(dispatcher);
const request = (path: string, init?: RequestInit) => handle(new Request(`http://app.test${path}`, init));

test('values become JSON or text with ctx.status and the headers middleware set', async (t) => {
  const json = await request('/json/a%20b?x=1');
  t.is(json.status, 200);
  t.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(json.headers.get('x-revision'), '1');
  t.deepEqual(await json.json(), { id: 'a b' });
  const text = await request('/text');
  t.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.is(await text.text(), 'plain');
  const created = await request('/created', { method: 'POST' });
  t.is(created.status, 201);
});

test('a Response is answered as it is, with the headers middleware set added', async (t) => {
  const answer = await request('/response');
  t.is(answer.status, 302);
  t.is(answer.headers.get('location'), 'http://example.com/elsewhere');
  t.is(answer.headers.get('x-revision'), '1');
});

test('undefined is 204; no record is 404, unregistered names 501, a failure 500, all in the error shape', async (t) => {
  t.is((await request('/nothing')).status, 204);
  const missing = await request('/missing');
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { code: 'not_found', message: 'no route matches GET /missing', details: [] });
  const ghost = await request('/ghost');
  t.is(ghost.status, 501);
  t.is(((await ghost.json()) as { code: string }).code, 'unimplemented');
  const fails = await request('/fails');
  t.is(fails.status, 500);
  t.is(fails.headers.get('cache-control'), 'no-store');
  t.deepEqual(await fails.json(), { code: 'internal', message: 'internal error', details: [] });
  const malformed = await request('/json/%E0%A4%A');
  t.is(malformed.status, 400);
});

test('a fallback answers what no record matches', async (t) => {
  const withFallback = fetchHandler(dispatcher, { fallback: () => new Response('theirs', { status: 418 }) });
  const answer = await withFallback(new Request('http://app.test/elsewhere'));
  t.is(answer.status, 418);
  t.is(await answer.text(), 'theirs');
});

// Serial: it counts the shared dispatcher's failures, which another test adds to.
test.serial('an answer that cannot be made (JSON of a BigInt, a bad header value) is a 500 like a throw', async (t) => {
  const failuresBefore = dispatcher.metrics().failures;
  for (const path of ['/unwritable', '/bad-header']) {
    const answer = await request(path);
    t.is(answer.status, 500, path);
    t.deepEqual(await answer.json(), { code: 'internal', message: 'internal error', details: [] });
  }
  t.is(dispatcher.metrics().failures, failuresBefore + 2);
});
