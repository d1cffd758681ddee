import test from 'ava';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { AssetChangeNotices, type AssetChangeNotice } from './asset-change-notices.js';
import { alice, chunked, setup } from './test-support.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

test("a core's own writes are told at once with their asset ids; a batch delete once with all of them", async (t) => {
  const notices = new AssetChangeNotices(undefined);
  const heard: AssetChangeNotice[] = [];
  notices.subscribe((notice) => heard.push(notice));
  const { service } = setup({ notices });
  const one = await service.upload(alice, { body: chunked(Buffer.from('one')) });
  const two = await service.upload(alice, { body: chunked(Buffer.from('two')) });
  await service.update(alice, one.id, { label: 'x' });
  await service.batchDelete(alice, [one.id, two.id, one.id]);
  t.deepEqual(heard, [
    { workspace: alice.workspace, revision: 1, assetIds: [one.id] },
    { workspace: alice.workspace, revision: 2, assetIds: [two.id] },
    { workspace: alice.workspace, revision: 3, assetIds: [one.id] },
    { workspace: alice.workspace, revision: 4, assetIds: [one.id, two.id] },
  ]);
});

test("another instance's asset revisions on the feed are told with the ids they name; the echo of its own, and route revisions, are not", async (t) => {
  const feed = new LoopbackChangeFeed();
  const notices = new AssetChangeNotices(feed);
  const heard: AssetChangeNotice[] = [];
  const stop = notices.subscribe((notice) => heard.push(notice));
  notices.committed('acme', 3, ['as_local']);
  await feed.publish('acme', 3, 'assets');
  await feed.publish('acme', 4, 'routes');
  await feed.publish('acme', 4, 'assets');
  await feed.publish('other', 1, 'assets');
  await feed.publish('other', 2, 'assets', ['as_remote']);
  await flush();
  t.deepEqual(heard, [
    { workspace: 'acme', revision: 3, assetIds: ['as_local'] },
    { workspace: 'acme', revision: 4 },
    { workspace: 'other', revision: 1 },
    { workspace: 'other', revision: 2, assetIds: ['as_remote'] },
  ]);
  stop();
  await feed.publish('acme', 5, 'assets');
  await flush();
  t.is(heard.length, 4, 'nothing after the last listener left');
});
