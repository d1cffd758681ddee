import test from 'ava';
import { createPrincipal } from './principal.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

const alice = createPrincipal('alice', 'acme', ['routes:read']);
const bob = createPrincipal('bob', 'acme', []);

test('a kept token answers until its expiry, then is gone', (t) => {
  const cache = new VerifiedTokenCache();
  cache.set('token-a', alice, 1_000, 5_000);
  t.is(cache.get('token-a', 1_000), alice);
  t.is(cache.get('token-a', 4_999), alice);
  t.is(cache.get('token-a', 5_000), undefined, 'expired at exp');
  t.is(cache.size, 0, 'an expired entry is dropped when found');
  t.is(cache.get('token-b', 1_000), undefined, 'never kept');
});

test('an entry answers at most maxAgeMs, however far off the expiry', (t) => {
  const cache = new VerifiedTokenCache({ maxAgeMs: 60_000 });
  cache.set('token-a', alice, 0, 3_600_000);
  t.is(cache.get('token-a', 59_999), alice);
  t.is(cache.get('token-a', 60_000), undefined);
});

test('only the exact token text hits', (t) => {
  const cache = new VerifiedTokenCache();
  cache.set('header.payload.signature', alice, 0, 10_000);
  for (const other of ['header.payload.signaturf', 'header.payload.signature ', 'header.payload.', 'HEADER.payload.signature']) {
    t.is(cache.get(other, 1), undefined, other);
  }
});

test('when full, the oldest entries make room, by count and by characters', (t) => {
  const byCount = new VerifiedTokenCache({ maxEntries: 2 });
  byCount.set('one', alice, 0, 10_000);
  byCount.set('two', bob, 0, 10_000);
  byCount.set('three', alice, 0, 10_000);
  t.is(byCount.size, 2);
  t.is(byCount.get('one', 1), undefined);
  t.is(byCount.get('two', 1), bob);

  const byChars = new VerifiedTokenCache({ maxChars: 10 });
  byChars.set('aaaa', alice, 0, 10_000);
  byChars.set('bbbb', bob, 0, 10_000);
  byChars.set('cccc', alice, 0, 10_000);
  t.is(byChars.get('aaaa', 1), undefined, '12 characters would not fit');
  t.is(byChars.get('cccc', 1), alice);
  byChars.set('x'.repeat(11), alice, 0, 10_000);
  t.is(byChars.size, 2, 'a token larger than the whole budget is not kept and evicts nothing');
});

test('setting a token again replaces its entry without counting it twice', (t) => {
  const cache = new VerifiedTokenCache({ maxChars: 8 });
  cache.set('abcd', alice, 0, 1_000);
  cache.set('abcd', bob, 0, 10_000);
  cache.set('efgh', alice, 0, 10_000);
  t.is(cache.size, 2);
  t.is(cache.get('abcd', 5_000), bob);
});

test('maxEntries 0 turns the cache off', (t) => {
  const cache = new VerifiedTokenCache({ maxEntries: 0 });
  cache.set('token-a', alice, 0, 10_000);
  t.is(cache.get('token-a', 1), undefined);
});
