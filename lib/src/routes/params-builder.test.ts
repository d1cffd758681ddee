import test from 'ava';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { paramsBuilder } from './params-builder.js';

const path = '/users/42/files/a/b.png';
const starts = Int32Array.of(7);
const ends = Int32Array.of(9);
const wildcardStart = 16;

test('a builder makes an object of the route\'s names, with the wildcard\'s rest under "*"', (t) => {
  t.deepEqual(paramsBuilder(['id'], true)(path, starts, ends, wildcardStart), { id: '42', '*': 'a/b.png' });
  t.deepEqual(paramsBuilder(['id'], false)(path, starts, ends, wildcardStart), { id: '42' });
  t.deepEqual(paramsBuilder([], false)(path, starts, ends, wildcardStart), {});
  const two = paramsBuilder(['a', 'b'], false);
  t.deepEqual(two('/x/y', Int32Array.of(1, 3), Int32Array.of(2, 4), 0), { a: 'x', b: 'y' });
  t.not(two('/x/y', Int32Array.of(1, 3), Int32Array.of(2, 4), 0), two('/x/y', Int32Array.of(1, 3), Int32Array.of(2, 4), 0), 'a new object per match');
});

test('without code generation from strings (a strict CSP) the builder falls back to a loop with the same answers', (t) => {
  const source = fileURLToPath(new URL('./params-builder.ts', import.meta.url));
  const script = `
    const { paramsBuilder } = await import(${JSON.stringify(source)});
    let refused = false;
    try { new Function('return 1'); } catch { refused = true; }
    const built = paramsBuilder(['id'], true)(${JSON.stringify(path)}, Int32Array.of(7), Int32Array.of(9), 16);
    console.log(JSON.stringify({ refused, built }));`;
  const output = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  t.deepEqual(JSON.parse(output), { refused: true, built: { id: '42', '*': 'a/b.png' } });
});
