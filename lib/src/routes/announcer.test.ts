import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { Announcer } from './announcer.js';

/** What a listener of `feed` hears, as `workspace@revision`. */
function heard(feed: ChangeFeed): string[] {
  const messages: string[] = [];
  feed.subscribe({ revision: (workspace, revision) => messages.push(`${workspace}@${revision}`), state: () => undefined });
  return messages;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

test('an announcement goes out at once while the feed is up', async (t) => {
  const feed = new LoopbackChangeFeed();
  const messages = heard(feed);
  new Announcer(feed, 20).announce('acme', 3);
  await until(() => messages.length === 1, 'the message');
  t.deepEqual(messages, ['acme@3']);
});

test('announcements made while the feed is down are sent once it is back: the latest per workspace, nothing meanwhile', async (t) => {
  const feed = new LoopbackChangeFeed();
  const messages = heard(feed);
  const announcer = new Announcer(feed, 20);
  feed.close();
  announcer.announce('acme', 4);
  announcer.announce('acme', 5);
  announcer.announce('shop', 9);
  await sleep(100);
  t.deepEqual(messages, [], 'nothing while down');
  t.is(announcer.unsent, 2);
  feed.start();
  await until(() => messages.length === 2, 'the kept announcements');
  t.deepEqual(messages.sort(), ['acme@5', 'shop@9']);
  t.is(announcer.unsent, 0);
  await sleep(100);
  t.is(messages.length, 2, 'sent once');
});

test('a feed that says it is up but cannot publish yet (a publisher connection still reconnecting) is tried again until it can', async (t) => {
  const loopback = new LoopbackChangeFeed();
  const messages = heard(loopback);
  let refusals = 3;
  const feed: ChangeFeed = {
    get up() {
      return true;
    },
    subscribe: (listener) => loopback.subscribe(listener),
    publish: async (workspace, revision) => {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error('publisher not connected');
      }
      await loopback.publish(workspace, revision);
    },
  };
  new Announcer(feed, 10).announce('acme', 7);
  await until(() => messages.length === 1, 'the message after three refusals');
  t.deepEqual(messages, ['acme@7']);
  t.is(refusals, 0);
});

test('a newer revision that goes out makes an older unsent one of the workspace moot', async (t) => {
  let failNext = true;
  const loopback = new LoopbackChangeFeed();
  const messages = heard(loopback);
  const feed: ChangeFeed = {
    get up() {
      return true;
    },
    subscribe: (listener) => loopback.subscribe(listener),
    publish: async (workspace, revision) => {
      if (failNext) {
        failNext = false;
        throw new Error('lost');
      }
      await loopback.publish(workspace, revision);
    },
  };
  const announcer = new Announcer(feed, 1_000);
  announcer.announce('acme', 1);
  await until(() => announcer.unsent === 1, 'the failed one kept');
  announcer.announce('acme', 2);
  await until(() => announcer.unsent === 0, 'the older one dropped');
  t.deepEqual(messages, ['acme@2']);
});
