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

test('what a lookup read is not kept when a change to its asset, or to unknown assets, was seen after it began', (t) => {
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 60_000 });
  const before = cache.begin();
  cache.forget('as_a');
  cache.put(before, 'as_a', 'b.png?#', meta('old'));
  t.is(cache.get('as_a', 'b.png?#'), undefined, 'its asset changed');
  cache.put(before, 'as_b', 'b.png?#', meta('b'));
  t.is(cache.get('as_b', 'b.png?#')?.etag, '"b"', 'another asset changed: what it read still holds');
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('after'));
  t.is(cache.get('as_a', 'b.png?#')?.etag, '"after"', 'begun after the change');
  const cleared = cache.begin();
  cache.clear();
  cache.put(cleared, 'as_c', 'b.png?#', meta('old'));
  t.is(cache.get('as_c', 'b.png?#'), undefined);
  cache.put(cache.begin(), 'as_c', 'b.png?#', meta('new'));
  t.is(cache.get('as_c', 'b.png?#')?.etag, '"new"');
});

test('a change no longer remembered (10,000 assets changed since) refuses every lookup begun before it', (t) => {
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 60_000 });
  const before = cache.begin();
  cache.forget('as_a');
  for (let i = 0; i < 10_000; i++) cache.forget(`as_${i}`);
  cache.put(before, 'as_a', 'b.png?#', meta('old'));
  t.is(cache.get('as_a', 'b.png?#'), undefined);
  cache.put(before, 'as_z', 'b.png?#', meta('z'));
  t.is(cache.get('as_z', 'b.png?#'), undefined, 'which assets changed is no longer known');
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

test('coverage complete: no age, bytes kept; feed: bytes kept, the TTL still bounds a lost message; partial: no bytes', (t) => {
  const clock = createManualClock();
  const cache = new ValidatorCache({ maxAssets: 10, ttlMs: 5_000, maxBytes: 1024, maxFileBytes: 4 }, clock);
  const bytes = Buffer.from([1]);
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('a'), bytes);
  t.truthy(cache.get('as_a', 'b.png?#'));
  t.is(cache.bytesOf('as_a', 'b.png?#', meta('a')), undefined, 'partial: only validators');
  t.false(cache.keepsBytesOf(1));

  cache.setCoverage('complete');
  t.is(cache.get('as_a', 'b.png?#'), undefined, 'a change of coverage starts afresh');
  t.true(cache.keepsBytesOf(4));
  t.false(cache.keepsBytesOf(5), 'larger than maxFileBytes');
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('a'), bytes);
  clock.advance(60 * 60_000);
  t.is(cache.get('as_a', 'b.png?#')?.etag, '"a"', 'complete: believed until a change');
  t.deepEqual(cache.bytesOf('as_a', 'b.png?#', meta('a')), bytes);
  t.is(cache.bytesOf('as_a', 'b.png?#', { ...meta('a'), size: 2 }), undefined, 'bytes of another size are not this file');
  cache.forget('as_a');
  t.is(cache.get('as_a', 'b.png?#'), undefined);

  cache.setCoverage('feed');
  cache.put(cache.begin(), 'as_a', 'b.png?#', meta('a'), bytes);
  t.deepEqual(cache.bytesOf('as_a', 'b.png?#', meta('a')), bytes);
  clock.advance(5_001);
  t.is(cache.get('as_a', 'b.png?#'), undefined, 'feed: asked for again after the TTL');

  const before = cache.begin();
  cache.setCoverage('partial');
  cache.put(before, 'as_a', 'b.png?#', meta('a'));
  t.is(cache.get('as_a', 'b.png?#'), undefined, 'read before the coverage changed: not kept');
});
