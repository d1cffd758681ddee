import test from 'ava';
import { changeFeedConformance } from '../testing/change-feed-conformance.js';
import { LoopbackChangeFeed } from './loopback-change-feed.js';

changeFeedConformance(test, {
  name: 'loopback',
  create: async () => {
    const feed = new LoopbackChangeFeed();
    return { store: { a: feed, b: feed }, close: async () => feed.close() };
  },
});

test('loopback: close tells listeners the feed is down and refuses publishing; start brings it back', async (t) => {
  const feed = new LoopbackChangeFeed();
  const states: boolean[] = [];
  feed.subscribe({ revision: () => undefined, state: (up) => states.push(up) });
  feed.close();
  await t.throwsAsync(feed.publish('ws', 1), { message: /closed/ });
  feed.close();
  feed.start();
  t.deepEqual(states, [false, true], 'each change told once');
  t.true(feed.up);
});
