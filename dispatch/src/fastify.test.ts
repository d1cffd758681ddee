import test from 'ava';
import Fastify from 'fastify';
import { createDispatcher } from './dispatcher.js';
import { fastifyDispatch } from './fastify.js';
import { FedTable, silent } from './table-test-support.js';

const fed = new FedTable([
  { method: 'GET', path: '/users/:id', middleware: [], handler: 'getUser' },
  { method: 'POST', path: '/users', middleware: [], handler: 'created' },
  { method: 'GET', path: '/ghost', middleware: [], handler: 'ghost' },
  { method: 'GET', path: '/', middleware: [], handler: 'root' },
]);
const dispatcher = createDispatcher({
  table: fed.table,
  logger: silent,
  handlers: {
    getUser: (ctx) => ({ id: ctx.params['id'] }),
    created: () => new Response('made', { status: 201, headers: { location: '/users/1' } }),
    root: () => ({ root: true }),
  },
});

test('under a prefix, records match the path after it; elsewhere Fastify answers its own 404', async (t) => {
  const app = Fastify();
  await app.register(fastifyDispatch(dispatcher), { prefix: '/api' });
  t.teardown(() => app.close());
  const user = await app.inject({ method: 'GET', url: '/api/users/7?x=1' });
  t.is(user.statusCode, 200);
  t.deepEqual(user.json(), { id: '7' });
  const outside = await app.inject({ method: 'GET', url: '/users/7' });
  t.is(outside.statusCode, 404);
  t.deepEqual(outside.json(), { message: 'Route GET:/users/7 not found', error: 'Not Found', statusCode: 404 });
  for (const url of ['/api', '/api/', '/api?x=1'])
    t.deepEqual(
      (await app.inject({ method: 'GET', url })).json(),
      { root: true },
      `${url}: the record for /, as Express mounted at /api serves it`,
    );
  const ghost = await app.inject({ method: 'GET', url: '/api/ghost' });
  t.is(ghost.statusCode, 501);
  t.is(ghost.json<{ code: string }>().code, 'unimplemented');
});

test("the app's own routes win over records wherever they are registered; unprefixed, / is a record's too", async (t) => {
  const app = Fastify();
  await app.register(fastifyDispatch(dispatcher));
  app.get('/users/me', async () => ({ own: true }));
  t.teardown(() => app.close());
  t.deepEqual(
    (await app.inject({ method: 'GET', url: '/users/me' })).json(),
    { own: true },
    'registered after the plugin, more specific than /*',
  );
  t.deepEqual((await app.inject({ method: 'GET', url: '/users/7' })).json(), { id: '7' });
  t.deepEqual((await app.inject({ method: 'GET', url: '/' })).json(), { root: true });
});

test('a Response from a handler is sent as it is; methods leaves others to other routes', async (t) => {
  const app = Fastify();
  app.options('/*', async () => 'the app answers OPTIONS');
  await app.register(fastifyDispatch(dispatcher, { methods: ['GET', 'HEAD', 'POST'] }));
  t.teardown(() => app.close());
  const created = await app.inject({ method: 'POST', url: '/users' });
  t.is(created.statusCode, 201);
  t.is(created.headers['location'], '/users/1');
  t.is(created.body, 'made');
  t.is((await app.inject({ method: 'OPTIONS', url: '/users' })).body, 'the app answers OPTIONS');
});
