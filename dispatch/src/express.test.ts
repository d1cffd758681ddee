import test from 'ava';
import express from 'express';
import { createServer } from 'node:http';
import { createDispatcher } from './dispatcher.js';
import { expressDispatch, type ExpressNative } from './express.js';
import { FedTable, serveForTests, silent } from './table-test-support.js';

const fed = new FedTable([
  { method: 'GET', path: '/users/:id', middleware: ['who'], handler: 'getUser' },
  { method: 'GET', path: '/', middleware: [], handler: 'root' },
  { method: 'GET', path: '/ghost', middleware: [], handler: 'ghost' },
]);
const dispatcher = createDispatcher<string, string, ExpressNative>({
  table: fed.table,
  logger: silent,
  handlers: {
    getUser: (ctx) => ({ id: ctx.params['id'], who: ctx.state['who'], mountedAt: ctx.request.baseUrl }),
    root: () => 'root',
  },
  middleware: { who: (ctx, next) => ((ctx.state['who'] = ctx.request.get('x-who')), next()) },
});

// Mounted under /api, as a table of /users/:id is meant to be: records match the path after the mount point.
const app = express();
app.use('/api', expressDispatch(dispatcher));
app.get('/api/after', (_req, res) => void res.json({ own: 'after' }));
app.use((_req: express.Request, res: express.Response) => void res.status(404).json({ own: 'not found' }));
const server = createServer(app);
const served = serveForTests(server);

test("under a mount point, records match req.path and ctx.request is Express's", async (t) => {
  const user = await fetch(`${served.base()}/api/users/42?x=1`, { headers: { 'x-who': 'ada' } });
  t.is(user.status, 200);
  t.deepEqual(await user.json(), { id: '42', who: 'ada', mountedAt: '/api' });
  t.is(await (await fetch(`${served.base()}/api`)).text(), 'root', 'the mount point itself is the record for /');
  t.deepEqual(
    await (await fetch(`${served.base()}/users/42`)).json(),
    { own: 'not found' },
    'outside the mount point the table is not asked',
  );
});

test('what no record matches goes on with next(): to routes after it, then the app 404', async (t) => {
  t.deepEqual(await (await fetch(`${served.base()}/api/after`)).json(), { own: 'after' });
  const missing = await fetch(`${served.base()}/api/nothing`);
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { own: 'not found' });
});

test('unregistered names answer 501 and a malformed path 400, in the error shape', async (t) => {
  const ghost = await fetch(`${served.base()}/api/ghost`);
  t.is(ghost.status, 501);
  t.is(ghost.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(((await ghost.json()) as { code: string }).code, 'unimplemented');
  const malformed = await fetch(`${served.base()}/api/users/%E0%A4%A`);
  t.is(malformed.status, 400);
  t.is(((await malformed.json()) as { code: string }).code, 'invalid_argument');
});
