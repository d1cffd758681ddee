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
  t.not(
    two('/x/y', Int32Array.of(1, 3), Int32Array.of(2, 4), 0),
    two('/x/y', Int32Array.of(1, 3), Int32Array.of(2, 4), 0),
    'a new object per match',
  );
});

test('builders are compiled where code generation is allowed, and shared by routes with the same names', (t) => {
  const builder = paramsBuilder(['id', 'commentId'], false);
  t.regex(builder.toString(), /^function anonymous\(path,starts,ends,wildcardStart\n\) \{\nreturn \{ "id": /);
  t.is(paramsBuilder(['id', 'commentId'], false), builder);
  t.not(paramsBuilder(['id', 'commentId'], true), builder);
  t.not(paramsBuilder(['id'], false), builder);
});

test('"__proto__" is refused: as a literal key it would set the prototype', (t) => {
  t.throws(() => paramsBuilder(['__proto__'], false), { message: /__proto__/ });
});

test('without code generation from strings (a strict CSP) the builder falls back to a loop with the same answers', (t) => {
  const source = fileURLToPath(new URL('./params-builder.ts', import.meta.url));
  const script = `
    const { paramsBuilder } = await import(${JSON.stringify(source)});
    let refused = false;
    try { new Function('return 1'); } catch { refused = true; }
    const builder = paramsBuilder(['id'], true);
    const built = builder(${JSON.stringify(path)}, Int32Array.of(7), Int32Array.of(9), 16);
    console.log(JSON.stringify({ refused, compiled: builder.toString().startsWith('function anonymous'), built }));`;
  const output = execFileSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  t.deepEqual(JSON.parse(output), { refused: true, compiled: false, built: { id: '42', '*': 'a/b.png' } });
});
