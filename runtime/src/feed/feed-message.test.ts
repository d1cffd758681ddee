import test from 'ava';
import { MAX_FEED_IDS } from '@switchyard/core';
import { decodeRevision, encodeRevision } from './feed-message.js';

test('messages round-trip; anything else on the channel is ignored', (t) => {
  t.deepEqual(decodeRevision(encodeRevision('acme', 42)), { workspace: 'acme', revision: 42, log: 'routes', changed: undefined });
  t.deepEqual(decodeRevision(encodeRevision('acme', 7, 'assets')), { workspace: 'acme', revision: 7, log: 'assets', changed: undefined });
  t.is(encodeRevision('acme', 42, 'routes'), '{"workspace":"acme","revision":42}', 'a route revision reads as before asset changes');
  t.is(encodeRevision('acme', 7, 'assets'), '{"workspace":"acme","revision":7,"log":"assets"}');
  for (const junk of [
    '',
    'hello',
    '42',
    'null',
    '{"workspace":"acme"}',
    '{"workspace":"a b","revision":1}',
    '{"workspace":"acme","revision":0}',
    '{"workspace":"acme","revision":1.5}',
    '{"workspace":"acme","revision":"3"}',
    '{"workspace":"acme","revision":3,"log":"keys"}',
    '{"workspace":"acme","revision":3,"log":null}',
  ]) {
    t.is(decodeRevision(junk), undefined, junk);
  }
});

test('a revision names the ids it changed, up to MAX_FEED_IDS; beyond, or malformed, it names none and still counts', (t) => {
  const one = encodeRevision('acme', 8, 'assets', ['as_1']);
  t.is(one, '{"workspace":"acme","revision":8,"log":"assets","changed":["as_1"]}');
  t.deepEqual(decodeRevision(one)?.changed, ['as_1']);
  const most = Array.from({ length: MAX_FEED_IDS }, (_, i) => `as_${i}`);
  t.deepEqual(decodeRevision(encodeRevision('acme', 9, 'assets', most))?.changed, most);
  const tooMany = encodeRevision('acme', 10, 'assets', [...most, 'as_x']);
  t.is(tooMany, '{"workspace":"acme","revision":10,"log":"assets"}', 'a large batch names none');
  t.is(encodeRevision('acme', 11, 'assets', []), '{"workspace":"acme","revision":11,"log":"assets"}');
  for (const changed of ['"as_1"', '[]', '[1]', '["a b"]', '[null]', `[${JSON.stringify('x'.repeat(65))}]`]) {
    const decoded = decodeRevision(`{"workspace":"acme","revision":12,"log":"assets","changed":${changed}}`);
    t.deepEqual(decoded, { workspace: 'acme', revision: 12, log: 'assets', changed: undefined }, changed);
  }
});
