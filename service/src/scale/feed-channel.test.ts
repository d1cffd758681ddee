import test from 'ava';
import { decodeRevision, encodeRevision, feedChannel } from './feed-channel.js';

test('the channel is named after the database, so instances of one deployment meet and two deployments stay apart', (t) => {
  t.is(feedChannel({ kind: 'mysql', url: 'mysql://app:secret@db-1.internal:3306/switchyard' }), 'switchyard.routes.switchyard');
  t.is(feedChannel({ kind: 'mysql', url: 'mysql://app@10.0.0.7/switchyard' }), 'switchyard.routes.switchyard', 'the host does not matter');
  t.is(feedChannel({ kind: 'mysql', url: 'mysql://app@db/shop.prod' }), 'switchyard.routes.shop_prod', 'no NATS separators or wildcards');
  t.not(feedChannel({ kind: 'mysql', url: 'mysql://app@db/staging' }), feedChannel({ kind: 'mysql', url: 'mysql://app@db/production' }));
  const sqlite = feedChannel({ kind: 'sqlite', file: '/var/lib/switchyard/db.sqlite' });
  t.regex(sqlite, /^switchyard\.routes\.sqlite-[0-9a-f]{16}$/);
  t.not(sqlite, feedChannel({ kind: 'sqlite', file: '/srv/other/db.sqlite' }));
  t.is(
    feedChannel({ kind: 'mysql', url: 'mysql://app@db/switchyard' }, 'keys'),
    'switchyard.keys.switchyard',
    'key revocations beside them',
  );
});

test('messages round-trip; anything else on the channel is ignored', (t) => {
  t.deepEqual(decodeRevision(encodeRevision('acme', 42)), { workspace: 'acme', revision: 42, log: 'routes' });
  t.deepEqual(decodeRevision(encodeRevision('acme', 7, 'assets')), { workspace: 'acme', revision: 7, log: 'assets' });
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
