import test from 'ava';
import { createServer } from 'node:http';
import { createDispatcher } from './dispatcher.js';
import { nodeListener, type NodeNative } from './node.js';
import { FedTable, serveForTests, silent } from './table-test-support.js';

const fed = new FedTable([
  { method: 'GET', path: '/native', middleware: [], handler: 'native' },
  { method: 'GET', path: '/stream', middleware: ['stamp'], handler: 'stream' },
  { method: 'GET', path: '/json', middleware: [], handler: 'json' },
  { method: 'GET', path: '/late-failure', middleware: [], handler: 'lateFailure' },
  { method: 'GET', path: '/unwritable', middleware: [], handler: 'unwritable' },
  { method: 'GET', path: '/bad-header', middleware: ['badHeader'], handler: 'json' },
]);
const dispatcher = createDispatcher<string, string, NodeNative>({
  table: fed.table,
  logger: silent,
  handlers: {
    // Answers through node's own response object and returns nothing.
    native: (ctx) => void ctx.response.writeHead(202, { 'x-native': 'yes' }).end('by hand'),
    stream: () =>
      new Response(
        new ReadableStream({
          start: (controller) => (
            controller.enqueue(new TextEncoder().encode('a')), controller.enqueue(new TextEncoder().encode('b')), controller.close()
          ),
        }),
        {
          headers: { 'content-type': 'text/x-letters', 'set-cookie': 'a=1' },
        },
      ),
    json: () => ({ ok: true }),
    unwritable: async () => ({ big: 1n }),
    // Starts answering, then fails: the connection is cut rather than a wrong body sent.
    lateFailure: async (ctx) => {
      ctx.response.writeHead(200, { 'content-type': 'text/plain' });
      ctx.response.write('partial');
      throw new Error('mid-way');
    },
  },
  middleware: {
    badHeader: (ctx, next) => (ctx.setHeader('x-bad', 'line\nbreak'), next()),
    stamp: async (ctx, next) => {
      const answer = await next();
      ctx.setHeader('x-stamp', '1');
      return answer;
    },
  },
});

const server = createServer(nodeListener(dispatcher));
const served = serveForTests(server);

test('a handler may answer through ctx.response itself and return nothing', async (t) => {
  const answer = await fetch(`${served.base()}/native`);
  t.is(answer.status, 202);
  t.is(answer.headers.get('x-native'), 'yes');
  t.is(await answer.text(), 'by hand');
});

test('a Web Response is streamed out with its headers, cookies and the headers middleware set', async (t) => {
  const answer = await fetch(`${served.base()}/stream`);
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'text/x-letters');
  t.is(answer.headers.get('set-cookie'), 'a=1');
  t.is(answer.headers.get('x-stamp'), '1');
  t.is(await answer.text(), 'ab');
});

test('HEAD matches the GET record and sends no body; unmatched is a 404 in the error shape', async (t) => {
  const head = await fetch(`${served.base()}/json`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(await head.text(), '');
  const missing = await fetch(`${served.base()}/json/nope?q=1`);
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { code: 'not_found', message: 'no route matches GET /json/nope', details: [] });
});

// Serial: they count the shared dispatcher's failures.
test.serial('a failure after the answer began cuts the connection instead of sending a wrong body', async (t) => {
  const failuresBefore = dispatcher.metrics().failures;
  const answer = await fetch(`${served.base()}/late-failure`);
  t.is(answer.status, 200);
  await t.throwsAsync(answer.text());
  t.is(dispatcher.metrics().failures, failuresBefore + 1);
});

test.serial('an answer that cannot be written (JSON of a BigInt, a bad header value) is a 500, not a crash of the process', async (t) => {
  const failuresBefore = dispatcher.metrics().failures;
  for (const path of ['/unwritable', '/bad-header']) {
    const answer = await fetch(`${served.base()}${path}`);
    t.is(answer.status, 500, path);
    t.deepEqual(await answer.json(), { code: 'internal', message: 'internal error', details: [] });
  }
  t.is(dispatcher.metrics().failures, failuresBefore + 2);
});
