import test from 'ava';
import { createManualClock } from '@switchyard/core/testing';
import { ValidatorCache, type FileMeta } from './validator-cache.js';

const meta = (etag: string, visibility = 'public'): FileMeta => ({
  etag: `"${etag}"`,
  lastModified: new Date(0),
  type: 'image/png',
  size: 1,
  visibility,
  name: 'a.png',
});

test('keeps a public file by asset and variant; forgetting the asset drops all its variants and no other', (t) => {
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 60_000 });
  cache.put(cache.begin(), 'as_a', 'b1.png?#', meta('a1'));
  cache.put(cache.begin(), 'as_a', 'b1.png?w=64#', meta('a1-64'));
  cache.put(cache.begin(), 'as_b', 'b2.png?#', meta('b'));
  t.is(cache.get('as_a', 'b1.png?#')?.etag, '"a1"');
  t.is(cache.get('as_a', 'b1.png?w=64#')?.etag, '"a1-64"');
  cache.forget('as_a');
  t.is(cache.get('as_a', 'b1.png?#'), undefined);
  t.is(cache.get('as_a', 'b1.png?w=64#'), undefined);
  t.is(cache.get('as_b', 'b2.png?#')?.etag, '"b"');
  cache.clear();
  t.is(cache.get('as_b', 'b2.png?#'), undefined);
});

test('a private file is never kept: its signature is checked on every request', (t) => {
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 60_000 });
  cache.put(cache.begin(), 'as_p', 'b.png?sig=x#', meta('p', 'private'));
  t.is(cache.get('as_p', 'b.png?sig=x#'), undefined);
});

test('what a lookup read is not kept when a change was seen after it began (it may have read the file before the change)', (t) => {
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 60_000 });
  const before = cache.begin();
  cache.forget('as_other');
  cache.put(before, 'as_a', 'b.png?#', meta('old'));
  t.is(cache.get('as_a', 'b.png?#'), undefined);
  const cleared = cache.begin();
  cache.clear();
  cache.put(cleared, 'as_a', 'b.png?#', meta('old'));
  t.is(cache.get('as_a', 'b.png?#'), undefined);
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('new'));
  t.is(cache.get('as_a', 'b.png?#')?.etag, '"new"');
});

test('an asset is believed for ttlMs after its first entry, not a ms longer, whatever was added since', (t) => {
  const clock = createManualClock();
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 5_000 }, clock);
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('a'));
  clock.advance(3_000);
  cache.put(cache.begin(), 'as_a', 'b.png?w=64#', meta('a-64'));
  t.truthy(cache.get('as_a', 'b.png?w=64#'));
  clock.advance(2_000);
  t.is(cache.get('as_a', 'b.png?#')?.etag, '"a"', 'believed at 5,000 ms');
  t.is(cache.get('as_a', 'b.png?w=64#')?.etag, '"a-64"');
  clock.advance(1);
  t.is(cache.get('as_a', 'b.png?#'), undefined, 'asked for again at 5,001 ms');
  t.is(cache.get('as_a', 'b.png?w=64#'), undefined, 'added later, gone with its group');
});

test('bounded: least recently used assets go first; an asset keeps at most 32 variants; 0 keeps nothing', (t) => {
  const cache = new ValidatorCache({ maxAssets: 2, ttlMs: 60_000 });
  for (const id of ['as_1', 'as_2', 'as_3']) cache.put(cache.begin(), id, 'f#', meta(id));
  t.is(cache.get('as_1', 'f#'), undefined);
  t.truthy(cache.get('as_3', 'f#'));
  for (let i = 0; i < 33; i++) cache.put(cache.begin(), 'as_3', `f?w=${i}#`, meta(`v${i}`));
  t.is(cache.get('as_3', 'f?w=0#'), undefined);
  t.truthy(cache.get('as_3', 'f?w=32#'));
  const off = new ValidatorCache({ maxAssets: 0, ttlMs: 60_000 });
  off.put(off.begin(), 'as_1', 'f#', meta('x'));
  t.is(off.get('as_1', 'f#'), undefined);
});
