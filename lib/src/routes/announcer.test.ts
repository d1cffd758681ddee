import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { timeSourceOf } from '../testing/fake-time.js';
import { Announcer } from './announcer.js';

/** What a listener of `feed` hears, as `workspace@revision`. */
function heard(feed: ChangeFeed): string[] {
  const messages: string[] = [];
  feed.subscribe({ revision: (workspace, revision) => messages.push(`${workspace}@${revision}`), state: () => undefined });
  return messages;
}

/** A feed that says it is up and refuses the first `refusals` publications (a publisher connection still reconnecting). */
function refusing(refusals: number) {
  const loopback = new LoopbackChangeFeed();
  const state = { refusals, messages: heard(loopback) };
  const feed: ChangeFeed = {
    get up() {
      return true;
    },
    subscribe: (listener) => loopback.subscribe(listener),
    publish: async (workspace, revision) => {
      if (state.refusals > 0) {
        state.refusals -= 1;
        throw new Error('publisher not connected');
      }
      await loopback.publish(workspace, revision);
    },
  };
  return { feed, state };
}

test('an announcement goes out at once while the feed is up', async (t) => {
  const fake = createClock(0);
  const feed = new LoopbackChangeFeed();
  const messages = heard(feed);
  new Announcer(feed, 20, timeSourceOf(fake)).announce('acme', 3);
  await fake.tickAsync(0);
  t.deepEqual(messages, ['acme@3']);
  t.is(fake.countTimers(), 0, 'no retry is scheduled');
});

test('announcements made while the feed is down are sent at the first retry after it is back: the latest per workspace, nothing meanwhile', async (t) => {
  const fake = createClock(0);
  const feed = new LoopbackChangeFeed();
  const messages = heard(feed);
  const announcer = new Announcer(feed, 20, timeSourceOf(fake));
  feed.close();
  announcer.announce('acme', 4);
  announcer.announce('acme', 5);
  announcer.announce('shop', 9);
  // Looked at every 20 ms while down.
  await fake.tickAsync(110);
  t.deepEqual(messages, [], 'nothing while down');
  t.is(announcer.unsent, 2);
  feed.start();
  await fake.tickAsync(9);
  t.deepEqual(messages, [], 'not before the next retry, at 120 ms');
  await fake.tickAsync(1);
  t.deepEqual(messages.sort(), ['acme@5', 'shop@9']);
  t.is(announcer.unsent, 0);
  await fake.tickAsync(1_000);
  t.is(messages.length, 2, 'sent once');
  t.is(fake.countTimers(), 0);
});

test('a feed that says it is up but cannot publish yet is tried again every retryMs until it can', async (t) => {
  const fake = createClock(0);
  const { feed, state } = refusing(3);
  new Announcer(feed, 10, timeSourceOf(fake)).announce('acme', 7);
  // Refused at once, at 10 and at 20 ms; out at 30.
  await fake.tickAsync(29);
  t.deepEqual(state.messages, []);
  t.is(state.refusals, 0);
  await fake.tickAsync(1);
  t.deepEqual(state.messages, ['acme@7']);
});

test('a newer revision that goes out makes an older unsent one of the workspace moot', async (t) => {
  const fake = createClock(0);
  const { feed, state } = refusing(1);
  const announcer = new Announcer(feed, 1_000, timeSourceOf(fake));
  announcer.announce('acme', 1);
  await fake.tickAsync(0);
  t.is(announcer.unsent, 1, 'the failed one kept');
  announcer.announce('acme', 2);
  await fake.tickAsync(0);
  t.is(announcer.unsent, 0, 'the older one dropped');
  await fake.tickAsync(1_000);
  t.deepEqual(state.messages, ['acme@2'], 'and never sent');
});
