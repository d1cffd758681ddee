import test from 'ava';
import { parseRange, resolveRange } from './range.js';

test('single byte ranges parse; everything else means the whole file', (t) => {
  t.deepEqual(parseRange(undefined), { kind: 'whole' });
  t.deepEqual(parseRange('bytes=0-99'), { kind: 'from', start: 0, end: 99 });
  t.deepEqual(parseRange('bytes=100-'), { kind: 'from', start: 100, end: undefined });
  t.deepEqual(parseRange('bytes=-500'), { kind: 'suffix', length: 500 });
  t.deepEqual(parseRange('Bytes = 5 - 9 '), { kind: 'from', start: 5, end: 9 });
  for (const ignored of ['bytes=0-1,2-3', 'bytes=9-5', 'bytes=-', 'bytes=', 'items=0-1', 'bytes=a-b', 'bytes=0-1-2', 'bytes 0-1', 'bytes=+1-2']) {
    t.deepEqual(parseRange(ignored), { kind: 'whole' }, ignored);
  }
});

test('huge positions saturate instead of losing precision', (t) => {
  t.deepEqual(parseRange('bytes=99999999999999999999-'), { kind: 'from', start: Number.MAX_SAFE_INTEGER, end: undefined });
  t.is(resolveRange(parseRange('bytes=99999999999999999999-'), 10), 'unsatisfiable');
  t.deepEqual(resolveRange(parseRange('bytes=0-99999999999999999999'), 10), { start: 0, end: 9 });
});

test('resolving against the size: clamps the end, refuses a start past the end', (t) => {
  t.is(resolveRange({ kind: 'whole' }, 10), 'whole');
  t.deepEqual(resolveRange({ kind: 'from', start: 2, end: 4 }, 10), { start: 2, end: 4 });
  t.deepEqual(resolveRange({ kind: 'from', start: 2, end: undefined }, 10), { start: 2, end: 9 });
  t.deepEqual(resolveRange({ kind: 'from', start: 9, end: 50 }, 10), { start: 9, end: 9 });
  t.is(resolveRange({ kind: 'from', start: 10, end: undefined }, 10), 'unsatisfiable');
  t.deepEqual(resolveRange({ kind: 'suffix', length: 3 }, 10), { start: 7, end: 9 });
  t.deepEqual(resolveRange({ kind: 'suffix', length: 30 }, 10), { start: 0, end: 9 });
  t.is(resolveRange({ kind: 'suffix', length: 0 }, 10), 'unsatisfiable');
  t.is(resolveRange({ kind: 'suffix', length: 5 }, 0), 'whole', 'a non-zero suffix of an empty file selects all of it (RFC 9110 §14.1.1)');
  t.is(resolveRange({ kind: 'suffix', length: 0 }, 0), 'unsatisfiable');
  t.is(resolveRange({ kind: 'from', start: 0, end: undefined }, 0), 'unsatisfiable');
});
