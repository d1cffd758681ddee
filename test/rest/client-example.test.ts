// The README's "Calling from another service" example (the ```js block between
// <!-- client:start --> and <!-- client:end -->), run as printed with plain node against a real
// `npm start`: only the service's address is swapped for the free port it got. docs/client.md
// prints the same program.
import test from 'ava';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../support/run.js';
import { Child, cleanEnv, ROOT } from './support/processes.js';

const PRINTED_ADDRESS = 'http://127.0.0.1:50051';

async function clientExample(page: string): Promise<string | undefined> {
  const text = await readFile(join(ROOT, page), 'utf8');
  return /<!-- client:start -->\s*```js\n([\s\S]*?)```\s*<!-- client:end -->/.exec(text)?.[1];
}

test('docs/client.md prints the same client example as the README', async (t) => {
  const inReadme = await clientExample('README.md');
  t.not(inReadme, undefined, 'README.md has a ```js block between <!-- client:start --> and <!-- client:end -->');
  t.is(await clientExample('docs/client.md'), inReadme);
});

test("the README's client example uploads logo.png over gRPC and prints its type and url", async (t) => {
  const program = await clientExample('README.md');
  if (program === undefined) return t.fail('README.md has no client example');
  t.true(program.includes(PRINTED_ADDRESS), `the example calls the service at ${PRINTED_ADDRESS}`);

  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-client-example-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = cleanEnv({ PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const app = new Child(['start'], env);
  t.teardown(() => void app.process.kill('SIGKILL'));
  const [, rest] = await app.waitFor(/REST gateway +(http:\/\/\S+)/);
  const [, grpc] = await app.waitFor(/gRPC service +(\S+)/);
  const address = grpc!.startsWith('http') ? grpc! : `http://${grpc}`;

  const token = new Child(['token', '--workspace', 'demo'], env);
  t.is(await token.exited, 0, token.output);

  // Inside the repository, so `@switchyard/client` resolves to the workspace package (its compiled dist).
  const dir = join(ROOT, '.tmp', `client-example-${process.pid}`);
  await mkdir(dir, { recursive: true });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'app.mjs'), program.replaceAll(PRINTED_ADDRESS, address));
  await copyFile(join(ROOT, 'test/fixtures/image.png'), join(dir, 'logo.png'));
  const example = await run(process.execPath, ['app.mjs'], { cwd: dir, env: { ...process.env, SWITCHYARD_TOKEN: token.output.trim() } });
  t.is(example.code, 0, example.output);
  t.regex(example.stdout, new RegExp(`^image/png ${rest!.replaceAll('.', '\\.')}/files/as_[0-9a-z]{26}/bl_[0-9a-z]{26}\\.png\\n$`));

  t.is(await app.stop(), 0, app.output);
});
