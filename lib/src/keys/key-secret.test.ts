import test from 'ava';
import { digestsEqual, isWellFormedKeySecret, KEY_SECRET_LENGTH, keySecretDigest, looksLikeKeySecret, newKeySecret } from './key-secret.js';

test('a new secret has the prefix, 30 base62 characters and a checksum that checks', (t) => {
  const secret = newKeySecret();
  t.regex(secret, /^sy_[0-9A-Za-z]{36}$/);
  t.is(secret.length, KEY_SECRET_LENGTH);
  t.true(looksLikeKeySecret(secret));
  t.true(isWellFormedKeySecret(secret));
});

test('secrets differ each time', (t) => {
  const seen = new Set(Array.from({ length: 1000 }, () => newKeySecret()));
  t.is(seen.size, 1000);
});

test('one changed character breaks the checksum', (t) => {
  const secret = newKeySecret();
  for (const at of [3, 20, 32, 38]) {
    const replacement = secret[at] === 'a' ? 'b' : 'a';
    t.false(isWellFormedKeySecret(secret.slice(0, at) + replacement + secret.slice(at + 1)), `changed at ${at}`);
  }
});

test('other shapes are not well formed', (t) => {
  const secret = newKeySecret();
  for (const bad of [
    '',
    'sy_',
    secret.slice(0, -1),
    `${secret}0`,
    secret.replace('sy_', 'sk_'),
    `sy_${'-'.repeat(36)}`,
    'eyJhbGciOi.x.y',
  ]) {
    t.false(isWellFormedKeySecret(bad), bad);
  }
  t.false(looksLikeKeySecret('eyJhbGciOiJIUzI1NiJ9.e30.x'));
});

test('the digest is SHA-256 hex and compares in constant time', (t) => {
  const secret = newKeySecret();
  const digest = keySecretDigest(secret);
  t.regex(digest, /^[0-9a-f]{64}$/);
  t.true(digestsEqual(digest, keySecretDigest(secret)));
  t.false(digestsEqual(digest, keySecretDigest(newKeySecret())));
  t.false(digestsEqual(digest, 'abcd'));
});
