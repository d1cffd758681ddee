// The README's "Embedding the library" program, run as printed: the ```ts block between
// <!-- embed:start --> and <!-- embed:end -->, importing the package by its name as a user would.
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './rest/support/processes.js';

test("the README's embedding example runs and prints the route, params and asset it describes", async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const program = /<!-- embed:start -->\s*```ts\n([\s\S]*?)```\s*<!-- embed:end -->/.exec(readme)?.[1];
  if (program === undefined) return t.fail('README.md has no ```ts block between <!-- embed:start --> and <!-- embed:end -->');
  t.true(program.trim().split('\n').length <= 12, 'about ten lines, as promised');

  // Inside the repository, so `import … from 'switchyard'` resolves through package.json "exports".
  const dir = join(ROOT, '.tmp');
  const file = join(dir, `readme-example-${process.pid}.ts`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, program);
  t.teardown(() => rm(file, { force: true }));

  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = await once(child, 'exit');
  t.is(code, 0, output);
  t.regex(output, /^getUser \{ id: '42' \} image\/png 3 https:\/\/cdn\.example\.com\/files\/as_[0-9a-z]{26}\/bl_[0-9a-z]{26}\.png\n$/);
});
