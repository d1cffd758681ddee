import test from 'ava';
import { KeyIdMemo } from './key-id-memo.js';

test('names the key the service named for a secret, until its time is up', (t) => {
  let now = 1_000;
  const memo = new KeyIdMemo({ ttlMs: 60_000, now: () => now });
  t.is(memo.get('Bearer sy_a'), undefined);
  memo.remember('Bearer sy_a', 'key_a');
  t.is(memo.get('Bearer sy_a'), 'key_a');
  t.is(memo.get('Bearer sy_b'), undefined, 'another secret is not named');
  now += 59_999;
  t.is(memo.get('Bearer sy_a'), 'key_a');
  now += 1;
  t.is(memo.get('Bearer sy_a'), undefined, 'expired');
  memo.remember('Bearer sy_a', 'key_a');
  t.is(memo.get('Bearer sy_a'), 'key_a', 'named again once the service says it again');
});

test('when full, the oldest entry makes room; a bound of 0 remembers nothing', (t) => {
  const memo = new KeyIdMemo({ maxEntries: 2, now: () => 0 });
  memo.remember('a', 'key_a');
  memo.remember('b', 'key_b');
  memo.remember('a', 'key_a'); // told again: now the newest
  memo.remember('c', 'key_c');
  t.deepEqual(
    ['a', 'b', 'c'].map((secret) => memo.get(secret)),
    ['key_a', undefined, 'key_c'],
  );
  const none = new KeyIdMemo({ maxEntries: 0 });
  none.remember('a', 'key_a');
  t.is(none.get('a'), undefined);
});
