import test from 'ava';
import { feedChannel } from './feed-channel.js';

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
