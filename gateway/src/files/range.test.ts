import test from 'ava';
import { rangeOf } from './range.js';

test('a single byte range is served, clamped to the file', (t) => {
  t.deepEqual(rangeOf('bytes=0-99', 1000), { start: 0, end: 99 });
  t.deepEqual(rangeOf('bytes=100-', 1000), { start: 100, end: 999 });
  t.deepEqual(rangeOf('bytes=9-50', 10), { start: 9, end: 9 });
  t.deepEqual(rangeOf('bytes=0-99999999999999999999', 10), { start: 0, end: 9 });
});

test('suffix ranges: the last bytes, all of a shorter file, and the whole of an empty file', (t) => {
  t.deepEqual(rangeOf('bytes=-3', 10), { start: 7, end: 9 });
  t.deepEqual(rangeOf('bytes=-500', 10), { start: 0, end: 9 });
  t.is(rangeOf('bytes=-5', 0), 'whole', 'a non-zero suffix of an empty file selects all of it (RFC 9110 §14.1.1)');
});

test('starts past the end are 416', (t) => {
  t.is(rangeOf('bytes=10-', 10), 'unsatisfiable');
  t.is(rangeOf('bytes=0-', 0), 'unsatisfiable');
  t.is(rangeOf('bytes=99999999999999999999-', 10), 'unsatisfiable');
});

test('no header, another unit, malformed headers and several ranges mean the whole file', (t) => {
  for (const header of [undefined, 'items=0-1', 'bytes=abc', 'bytes=5-2', 'bytes=', 'Bytes = 5 - 9 ', 'bytes=0-1,3-4', 'bytes=0-1,1-4']) {
    t.is(rangeOf(header, 10), 'whole', String(header));
  }
});
