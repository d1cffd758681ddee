import test from 'ava';
import { TokenBucket } from './token-bucket.js';

test('a bucket admits its burst at once, then one call per refill interval', (t) => {
  const bucket = new TokenBucket(10, 3, 0);
  t.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0)], [0, 0, 0]);
  t.is(bucket.take(0), 100, 'empty: a token comes back in 1000/10 ms');
  t.is(bucket.take(50), 50, 'half refilled: half the wait left');
  t.is(bucket.take(100), 0);
  t.is(bucket.take(100), 100);
});

test('a bucket never holds more than its burst, and a clock going backwards refills nothing', (t) => {
  const bucket = new TokenBucket(1, 2, 0);
  t.true(bucket.isFull(0));
  bucket.take(0);
  t.false(bucket.isFull(0));
  t.true(bucket.isFull(1_000_000));
  t.is(bucket.take(1_000_000), 0);
  t.is(bucket.take(1_000_000), 0);
  t.is(bucket.take(500), 1000, 'time before the last update counts as no time');
});

test('slow rates round the wait up to a whole millisecond', (t) => {
  const bucket = new TokenBucket(3, 1, 0);
  bucket.take(0);
  t.is(bucket.take(0), 334);
});
