// docs/dispatch.md's (and dispatch/README.md's) samples are the files in test/dispatch/samples, quoted
// whole (each ```ts block under a `<!-- sample: path -->` marker); this test
// keeps the quotes equal to the files and runs every one: the framework
// samples as programs against a real npm start, the others imported.
import test from 'ava';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { DispatchContext, ErrorAnswer } from '@switchyard/dispatch';
import { ROOT } from '../support/cli.js';
import { Routes, startSwitchyard, type RunningSwitchyard } from './support/switchyard.js';
import { freePort } from '../support/free-port.js';
import { firstAnswer } from '../support/first-answer.js';

const DOC = join(ROOT, 'docs/dispatch.md');
const SAMPLES = join(ROOT, 'test/dispatch/samples');

async function quotedSamples(file = DOC): Promise<{ path: string; code: string }[]> {
  const doc = await readFile(file, 'utf8');
  return [...doc.matchAll(/<!-- sample: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map((match) => ({ path: match[1]!, code: match[2]! }));
}

test('every ts block of docs/dispatch.md quotes a sample file whole, and every sample file is quoted', async (t) => {
  const doc = await readFile(DOC, 'utf8');
  const blocks = [...doc.matchAll(/```ts\n/g)].length;
  const quoted = await quotedSamples();
  t.is(quoted.length, blocks, 'each ```ts block is under a <!-- sample: … --> marker');
  for (const { path, code } of quoted) t.is(code, await readFile(join(ROOT, path), 'utf8'), `${path} as the doc quotes it`);
  const files = (await readdir(SAMPLES)).map((name) => `test/dispatch/samples/${name}`).sort();
  t.deepEqual([...new Set(quoted.map((sample) => sample.path))].sort(), files);
});

test("the package README's sample is a sample file too", async (t) => {
  const readme = join(ROOT, 'dispatch/README.md');
  const quoted = await quotedSamples(readme);
  t.is(quoted.length, [...(await readFile(readme, 'utf8')).matchAll(/```ts\n/g)].length);
  t.true(quoted.length > 0);
  for (const { path, code } of quoted) t.is(code, await readFile(join(ROOT, path), 'utf8'), path);
});

let switchyard: RunningSwitchyard;
let token: string;
test.before(async () => {
  switchyard = await startSwitchyard();
  token = await switchyard.token('dispatch-samples');
  const routes = new Routes(switchyard.url, token);
  await routes.create({ method: 'GET', path: '/users/:id', middleware: ['timing', 'auth'], handler: 'getUser' });
  await routes.create({ method: 'GET', path: '/users', middleware: ['timing'], handler: 'listUsers' });
  await routes.create({ method: 'GET', path: '/health', handler: 'listUsers' });
});
test.after.always(() => switchyard?.stop());

const FRAMEWORK_SAMPLES = [
  { file: 'hono.ts', health: 'ok' },
  { file: 'express.ts', health: 'ok' },
  { file: 'fastify.ts', health: 'ok' },
  // No routes of its own: the record for /health answers, and the fallback what no record matches.
  { file: 'node-http.ts', health: JSON.stringify([{ id: '42', name: 'Ada' }]) },
] as const;

for (const { file, health } of FRAMEWORK_SAMPLES) {
  test(`the ${file} sample serves the table's routes with the sample registries`, async (t) => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=switchyard-source', join(SAMPLES, file)], {
      cwd: ROOT,
      env: { ...process.env, SWITCHYARD_URL: switchyard.url, SWITCHYARD_TOKEN: token, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    t.teardown(() => void child.kill('SIGKILL'));
    const base = `http://127.0.0.1:${port}`;

    const user = await firstAnswer(`${base}/users/42`, { headers: { authorization: 'Bearer demo' } }, () => output);
    t.is(user.status, 200, output);
    t.deepEqual(await user.json(), { id: '42', name: 'Ada' });
    t.regex(user.headers.get('server-timing') ?? '', /^app;dur=\d+\.\d$/, 'timing acted after the handler');

    const refused = await fetch(`${base}/users/42`);
    t.is(refused.status, 401);
    t.deepEqual(await refused.json(), { code: 'unauthenticated', message: 'who are you?' });

    const unknownUser = await fetch(`${base}/users/7`, { headers: { authorization: 'Bearer demo' } });
    t.is(unknownUser.status, 404);
    t.deepEqual(await unknownUser.json(), { code: 'not_found', message: 'no such user' });

    t.deepEqual(await (await fetch(`${base}/users`)).json(), [{ id: '42', name: 'Ada' }]);
    t.is(await (await fetch(`${base}/health`)).text(), health, "the app's own /health wins over the record where it has one");
    t.is((await fetch(`${base}/nothing`)).status, 404);
  });
}

test('the typed sample: the core in process, a typed registry, Express', async (t) => {
  const { app, switchyard: core, caller, following } = await import('./samples/typed.js');
  t.teardown(() => following.abort());
  await core.routes.create(caller, { method: 'GET', path: '/users/:id', middleware: ['auth'], handler: 'getUser' });
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => void server.close());
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answer = await firstAnswer(`${base}/users/9`, { headers: { authorization: 'Bearer x', 'user-agent': 'sample' } }, () => '');
  t.deepEqual(await answer.json(), { id: '9', agent: 'sample' });
  const refused = await fetch(`${base}/users/9`);
  t.is(refused.status, 401);
  t.deepEqual(await refused.json(), { code: 'unauthenticated' });
});

test('the reporting sample: unknown names and failures reach the hooks, the counters and unknown()', async (t) => {
  const { table, dispatcher, reports, status } = await import('./samples/reporting.js');
  const at = new Date(0);
  const route = {
    id: 'rt_sample',
    method: 'GET',
    path: '/x',
    middleware: ['auth', 'audit'],
    handler: 'exportAll',
    owner: '',
    createdAt: at,
    updatedAt: at,
    revision: 1,
  };
  table.apply({ type: 'reset', revision: 1 });
  table.apply({ type: 'upsert', revision: 1, route });
  table.apply({ type: 'synced', revision: 1 });
  t.deepEqual(reports, ['rt_sample lacks exportAll, audit']);
  const ctx = dispatcher.begin(undefined, undefined, 'GET', '/x') as DispatchContext;
  t.is((dispatcher.run(ctx) as ErrorAnswer).status, 501);
  dispatcher.failed(new Error('disk full'), ctx); // as an adapter does when a chain throws
  t.is(reports[1], 'exportAll failed: Error: disk full');
  t.deepEqual(status(), { unknownReported: 1, unimplementedAnswered: 1, failures: 1, unknownRecords: 1 });
});
