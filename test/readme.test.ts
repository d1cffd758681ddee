import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './support/cli.js';
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
  const [code] = await once(child, 'exit');
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
