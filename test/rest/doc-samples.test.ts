// Code samples of docs/ that run against a server, as printed, on one `npm start`: the
// `buf curl` commands of docs/grpc.md, the route-table server of docs/routes.md ("Matching in
// process"), and the resumableUpload and tus-js-client examples of docs/client.md and
// docs/uploads.md (with the variables their pages take as given). Only addresses are swapped: 8080 and 50051 for the free ports
// the server got, 3000 for a free one, and the `rt_…` placeholder for a real route id.
import test from 'ava';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../support/run.js';
import { Child, cleanEnv, ROOT } from './support/processes.js';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/eventually.js';

let app: Child;
let rest: string;
let grpc: string;
let token: string;
let env: NodeJS.ProcessEnv;
let dataDir: string;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'switchyard-doc-samples-'));
  env = cleanEnv({ PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  app = new Child(['start'], env);
  rest = (await app.waitFor(/REST gateway +(http:\/\/\S+)/))[1]!;
  const address = (await app.waitFor(/gRPC service +(\S+)/))[1]!;
  grpc = address.startsWith('http') ? address : `http://${address}`;
  const minted = new Child(['token', '--workspace', 'demo'], env);
  if ((await minted.exited) !== 0) throw new Error(minted.output);
  token = minted.output.trim();
});
test.after.always(async () => {
  await app?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** The fenced blocks of `lang` under the heading `heading` of a docs page (up to the next heading of that level or above). */
async function blocksUnder(page: string, heading: string, lang: string): Promise<string[]> {
  const text = await readFile(join(ROOT, page), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`${page} has no heading "${heading}"`);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(at + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((block) => block[1]!);
}

async function createRoute(body: object): Promise<{ id: string }> {
  const response = await fetch(`${rest}/v1/routing`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

test('the buf curl commands of docs/grpc.md list, check health and call GetRoute through reflection', async (t) => {
  const [script] = await blocksUnder('docs/grpc.md', '## Health and reflection', 'sh');
  if (script === undefined) return t.fail('docs/grpc.md has no ```sh block under "Health and reflection"');
  const route = await createRoute({ method: 'GET', path: '/buf/:id', handler: 'viaBuf' });
  const shell = script.replaceAll('http://127.0.0.1:50051', grpc).replaceAll('rt_…', route.id);
  const result = await run('bash', ['-e', '-o', 'pipefail', '-c', shell], {
    cwd: ROOT,
    env: { ...env, TOKEN: token, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
  });
  t.is(result.code, 0, result.output);
  t.regex(result.output, /switchyard\.v1\.RouteService\/CreateRoute/, 'the listed methods');
  t.regex(result.output, /"status": ?"SERVING"/, 'the health check');
  t.regex(result.output, /"handler": ?"viaBuf"/, 'GetRoute');
});

test('the route-table server of docs/routes.md answers by the watched table, and follows a new route', async (t) => {
  const [program] = await blocksUnder('docs/routes.md', '## Matching in process', 'ts');
  if (program === undefined) return t.fail('docs/routes.md has no ```ts block under "Matching in process"');
  t.true(program.includes("'http://127.0.0.1:8080'") && program.includes('.listen(3000)'), 'the addresses this test swaps');
  const port = await freePort();
  const dir = join(ROOT, '.tmp', `routes-example-${process.pid}`);
  await mkdir(dir, { recursive: true });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'app.mjs'),
    program.replaceAll("'http://127.0.0.1:8080'", `'${rest}'`).replace('.listen(3000)', `.listen(${port})`),
  );

  const server = spawn(process.execPath, ['app.mjs'], {
    cwd: dir,
    env: { ...process.env, SWITCHYARD_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void server.kill('SIGKILL'));
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

  await createRoute({ method: 'GET', path: '/users/:id', handler: 'getUser' });
  // The sample starts, then its table follows the route: asked until it answers 200 (or a generous deadline passes).
  let answer: { status: number; body: string } | undefined;
  await eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/users/42`);
      answer = { status: response.status, body: await response.text() };
      return answer.status === 200;
    },
    { timeout: 20_000, interval: 100, message: 'the sample serving /users/42' },
  ).catch(() => undefined);
  t.deepEqual(answer, { status: 200, body: '{"user":"42"}' }, output);
  const unknown = await fetch(`http://127.0.0.1:${port}/nowhere`);
  t.is(unknown.status, 404);
  t.deepEqual(await unknown.json(), { error: 'no route' });
  t.regex(output, /route table at revision \d+/);
});

/** Runs `program` as `app.mjs` with plain node in a folder of the repository (so workspace packages resolve), with `holiday.mp4` beside it. */
async function runProgram(name: string, program: string): Promise<{ code: number | null; stdout: string; output: string }> {
  const dir = join(ROOT, '.tmp', `${name}-${process.pid}`);
  await mkdir(dir, { recursive: true });
  try {
    await writeFile(join(dir, 'app.mjs'), program);
    await copyFile(join(ROOT, 'test/fixtures/clip.mp4'), join(dir, 'holiday.mp4'));
    return await run(process.execPath, ['app.mjs'], { cwd: dir, env: { ...process.env, SWITCHYARD_TOKEN: token } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the resumableUpload example of docs/client.md uploads holiday.mp4, reporting its upload id and progress', async (t) => {
  const [program] = await blocksUnder('docs/client.md', '## Large files: resumableUpload', 'js');
  if (program === undefined) return t.fail('docs/client.md has no ```js block under "Large files: resumableUpload"');
  // The client of the page's first example, created the same way.
  const client = `import { createSwitchyardClient } from '@switchyard/client';\nconst switchyard = createSwitchyardClient({ baseUrl: '${grpc}', protocol: 'grpc', token: process.env.SWITCHYARD_TOKEN });\n`;
  const done = `console.log('asset', video.id, video.type, video.name);\nswitchyard.close();\n`;
  const result = await runProgram('resumable-example', client + program + done);
  t.is(result.code, 0, result.output);
  t.regex(result.stdout, /^upload \S+$/m, 'onUploadId');
  t.regex(result.stdout, /^(\d+) of \1 bytes$/m, 'onProgress, up to the whole file');
  t.regex(result.stdout, /^asset as_[0-9a-z]{26} video\/mp4 holiday\.mp4$/m);
});

test('the tus-js-client example of docs/uploads.md uploads through /v1/uploads and logs the asset id', async (t) => {
  const [program] = await blocksUnder('docs/uploads.md', '## tus at /v1/uploads', 'js');
  if (program === undefined) return t.fail('docs/uploads.md has no ```js block under "tus at /v1/uploads"');
  t.true(program.includes("'http://127.0.0.1:8080/v1/uploads'"), 'the endpoint this test swaps');
  // In a browser `file` is a File and `token` the signed-in user's; here, a video's bytes and a minted token.
  const given = `import { readFileSync } from 'node:fs';\nconst file = readFileSync('holiday.mp4');\nconst token = process.env.SWITCHYARD_TOKEN;\n`;
  const result = await runProgram('tus-example', given + program.replace("'http://127.0.0.1:8080/v1/uploads'", `'${rest}/v1/uploads'`));
  t.is(result.code, 0, result.output);
  const id = /^asset (as_[0-9a-z]{26})$/m.exec(result.stdout)?.[1];
  if (id === undefined) return t.fail(result.output);
  const asset = (await (await fetch(`${rest}/v1/assets/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<
    string,
    unknown
  >;
  t.like(asset, { type: 'video/mp4', name: 'holiday.mp4', label: 'videos', visibility: 'private' });
});
