import test from 'ava';
import { prefixRange } from './name-prefix.js';

test('a prefix is a range up to its last character raised by one, and its length in bytes', (t) => {
  t.deepEqual(prefixRange('rep'), { from: 'rep', to: 'req', bytes: 3 });
  t.deepEqual(prefixRange('100%_'), { from: '100%_', to: '100%`', bytes: 5 }, 'wildcards are plain characters');
  t.deepEqual(prefixRange('a\\'), { from: 'a\\', to: 'a]', bytes: 2 });
  t.is(prefixRange('📷 ').bytes, 5);
  t.is(prefixRange('é').to, 'ê');
  t.is(prefixRange('x📷').to, 'x📸', 'by code point, not UTF-16 unit');
  t.is(prefixRange('a\ud7ff').to, 'a\ue000', 'over the surrogates');
  t.is(prefixRange('a\u{10FFFF}\u{10FFFF}').to, 'b', 'the last code point carries over');
  t.is(prefixRange('\u{10FFFF}').to, '\u{10FFFF}'.repeat(256), 'nothing to raise: above every key');
});

test('every string starting with the prefix is inside its range, and the strings just outside are not', (t) => {
  for (const prefix of ['rep', 'a\ud7ff', 'z\u{10FFFF}', '100%']) {
    const { from, to } = prefixRange(prefix);
    const inside = (key: string) => compare(from, key) <= 0 && compare(key, to) < 0;
    for (const rest of ['', ' ', '\u{10FFFF}'.repeat(3), 'zzz', '\u0000']) t.true(inside(prefix + rest), JSON.stringify(prefix + rest));
    t.false(inside(to));
    t.false(inside([...prefix].slice(0, -1).join('')));
  }
});

/** Code point order, as utf8mb4_bin and SQLite's BINARY compare UTF-8. */
function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
