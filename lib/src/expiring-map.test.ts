import test from 'ava';
import { ExpiringMap } from './expiring-map.js';

test('an entry answers until its time, then is gone', (t) => {
  const map = new ExpiringMap<string, number>({ maxEntries: 10 });
  map.set('a', 1, 100);
  t.is(map.get('a', 0), 1);
  t.is(map.get('a', 99), 1);
  t.is(map.get('a', 100), undefined, 'not at its time');
  t.is(map.size, 0, 'the expired entry is dropped when met');
});

test('when full, the oldest entry makes room; setting a key again makes it the newest', (t) => {
  const map = new ExpiringMap<string, number>({ maxEntries: 2 });
  map.set('a', 1, 100);
  map.set('b', 2, 100);
  map.set('a', 3, 100);
  map.set('c', 4, 100);
  t.is(map.get('b', 0), undefined, 'b was the oldest once a was set again');
  t.is(map.get('a', 0), 3);
  t.is(map.get('c', 0), 4);
  t.is(map.size, 2);
});

test('a weight budget: old entries make room for a heavy one, and one over the whole budget is not kept', (t) => {
  const map = new ExpiringMap<string, string>({ maxEntries: 100, weigh: (key) => key.length, maxWeight: 10 });
  map.set('aaaa', 'a', 100);
  map.set('bbbb', 'b', 100);
  map.set('cccc', 'c', 100);
  t.is(map.get('aaaa', 0), undefined, '12 characters do not fit in 10: the oldest went');
  t.is(map.get('bbbb', 0), 'b');
  map.set('x'.repeat(11), 'too heavy', 100);
  t.is(map.get('x'.repeat(11), 0), undefined);
  t.is(map.size, 2, 'and nothing was evicted for it');
  map.delete('bbbb');
  map.set('dddddd', 'd', 100);
  t.is(map.get('cccc', 0), 'c', 'a deleted entry gave its weight back');
  t.is(map.get('dddddd', 0), 'd');
});

test('deleteWhere drops the entries whose value matches; clear drops all; maxEntries 0 keeps nothing', (t) => {
  const map = new ExpiringMap<string, { workspace: string }>({ maxEntries: 10 });
  map.set('a', { workspace: 'one' }, 100);
  map.set('b', { workspace: 'two' }, 100);
  map.set('c', { workspace: 'one' }, 100);
  map.deleteWhere((value) => value.workspace === 'one');
  t.deepEqual(
    ['a', 'b', 'c'].map((key) => map.get(key, 0)?.workspace),
    [undefined, 'two', undefined],
  );
  map.clear();
  t.is(map.size, 0);
  const off = new ExpiringMap<string, number>({ maxEntries: 0 });
  off.set('a', 1, 100);
  t.is(off.get('a', 0), undefined);
});
