import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './rest/support/processes.js';
import { Background } from './support/background.js';
import { ROOT } from './support/cli.js';
import { samplesOf } from './support/samples.js';
import { commandLines } from './support/shell-example.js';
import { EMBEDDING_OUTPUT, readmeEmbeddingExample } from './support/readme.js';

// The quick check, inside the repository against the built packages; test/packages/ runs it
// again in a fresh project that installed only the @switchyard/core tarball.
test("the README's embedding example runs with plain node and prints the route, params and asset it describes", async (t) => {
  const program = await readmeEmbeddingExample();
  if (program === undefined) return t.fail('README.md has no ```ts block between <!-- embed:start --> and <!-- embed:end -->');
  t.true(program.trim().split('\n').length <= 12, 'about ten lines, as promised');

  // Inside the repository, so `@switchyard/core` resolves to the workspace package (its compiled dist).
  const dir = join(ROOT, '.tmp', `readme-example-${process.pid}`);
  await mkdir(dir, { recursive: true });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'app.mjs'), program);
  await copyFile(join(ROOT, 'test/fixtures/image.png'), join(dir, 'logo.png'));

  const child = spawn(process.execPath, ['app.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  t.is(code, 0, output);
  t.regex(output, EMBEDDING_OUTPUT);
});

for (const page of ['docs/embedding.md', 'lib/README.md']) {
  test(`${page} prints the same embedding example as the README, so the run above covers it`, async (t) => {
    const inReadme = await readmeEmbeddingExample();
    const inPage = await readmeEmbeddingExample(page);
    t.not(inPage, undefined, `${page} has a \`\`\`ts block between <!-- embed:start --> and <!-- embed:end -->`);
    t.is(inPage, inReadme);
  });
}

// The two commands of the README (and docs/getting-started.md): CI has just run `npm ci`; this runs
// `npm start` as printed, on free ports and a scratch data folder, and stops it as a reader would (Ctrl-C).
test('`npm start`, as the README prints it, serves on embedded defaults and stops cleanly on Ctrl-C', async (t) => {
  t.timeout(90_000);
  const commandsOf = async (page: string) => commandLines((await samplesOf(page)).find((sample) => sample.first === 'npm ci')?.body ?? '');
  const [install, start] = await commandsOf('README.md');
  t.is(install, 'npm ci', 'the README gives the two commands in one block');
  t.is(start, 'npm start');
  // getting-started.md adds `npm test` (what CI runs) after the same two.
  t.deepEqual(await commandsOf('docs/getting-started.md'), [install, start, 'npm test']);
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-npm-start-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = new Background(start!.split(' '), {
    cwd: ROOT,
    env: cleanEnv({ HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir }),
  });
  t.teardown(() => server.stop('SIGKILL'));
  const [, rest] = await server.waitFor(/REST gateway\s+(http:\/\/\S+)/);
  const health = await fetch(`${rest}/healthz`);
  t.is(health.status, 200, server.output);
  t.deepEqual(await health.json(), { status: 'SERVING' });
  // Ctrl-C reaches the whole foreground group: npm and the server under it.
  const { code, signal } = await server.stop('SIGINT');
  t.true(code === 0 || signal === 'SIGINT', `npm start ended with ${code ?? signal}:\n${server.output}`);
});
