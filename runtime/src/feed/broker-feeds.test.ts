// The Redis and NATS change feeds on private brokers: the port's contract,
// down and back up when the broker is stopped and started, a broker
// unreachable at start, and publishing that fails fast while it is away.
import test from 'ava';
import { changeFeedConformance, eventually, quietPeriod } from '@switchyard/core/testing';
import { startNats, startRedis, type TestBroker } from '../../../test/support/brokers.js';
import type { BrokerFeed } from './broker-feed.js';
import { NatsChangeFeed } from './nats-change-feed.js';
import { RedisChangeFeed } from './redis-change-feed.js';

type Make = (url: string, channel: string) => BrokerFeed;

const KINDS: [string, () => Promise<TestBroker>, Make][] = [
  ['redis', startRedis, (url, channel) => new RedisChangeFeed(url, channel, () => undefined)],
  ['nats', startNats, (url, channel) => new NatsChangeFeed(url, channel, () => undefined)],
];

/** Resolves when the feed's `up` is `wanted`; fails after `ms`. */
async function until(feed: BrokerFeed, wanted: boolean, ms = 10_000): Promise<void> {
  await eventually(() => feed.up === wanted, { timeout: ms, interval: 10, message: `the feed ${wanted ? 'up' : 'down'}` });
}

for (const [kind, startBroker, make] of KINDS) {
  let broker: TestBroker;
  test.before(async () => {
    broker = await startBroker();
  });
  test.after.always(() => broker?.close());

  let channels = 0;
  const pair = async (
    channel = `switchyard.routes.test${(channels += 1)}`,
  ): Promise<{ a: BrokerFeed; b: BrokerFeed; close(): Promise<void> }> => {
    const a = make(broker.url, channel);
    const b = make(broker.url, channel);
    a.start();
    b.start();
    await Promise.all([until(a, true), until(b, true)]);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  };

  changeFeedConformance(test.serial, {
    name: kind,
    create: async () => {
      const { a, b, close } = await pair();
      return { store: { a, b }, close };
    },
  });

  test.serial(`${kind}: two deployments on one broker (two channels) do not hear each other`, async (t) => {
    const one = await pair('switchyard.routes.one');
    const two = await pair('switchyard.routes.two');
    t.teardown(() => Promise.all([one.close(), two.close()]));
    const heard: string[] = [];
    two.b.subscribe({ revision: (workspace, revision) => heard.push(`${workspace}@${revision}`), state: () => undefined });
    await one.a.publish('ws', 1);
    await two.a.publish('ws', 9);
    await eventually(() => heard.length >= 1, { timeout: 10_000, interval: 10, message: "the second deployment's message" });
    // A message of the other channel would have come before it; a short quiet period shows none follows.
    await quietPeriod(100);
    t.deepEqual(heard, ['ws@9']);
  });

  test.serial(`${kind}: the broker stopped and started: down, publishing fails, then up and delivering again`, async (t) => {
    const { a, b, close } = await pair();
    t.teardown(close);
    const states: boolean[] = [];
    const heard: string[] = [];
    b.subscribe({ revision: (workspace, revision) => heard.push(`${workspace}@${revision}`), state: (up) => states.push(up) });
    await broker.stop();
    await Promise.all([until(a, false), until(b, false)]);
    await t.throwsAsync(a.publish('ws', 1), undefined, 'fails at once, queues nothing');
    await broker.start();
    await Promise.all([until(a, true), until(b, true)]);
    t.deepEqual(states, [false, true]);
    await a.publish('ws', 2);
    await eventually(() => heard.includes('ws@2'), { timeout: 10_000, interval: 10, message: 'ws@2 heard after the restart' });
    t.pass();
  });

  test.serial(
    `${kind}: a broker unreachable at start: the feed starts down, refuses to publish, and comes up when the broker does`,
    async (t) => {
      await broker.stop();
      const feed = make(broker.url, 'switchyard.routes.late');
      t.teardown(() => feed.close());
      feed.start();
      await quietPeriod(300);
      t.false(feed.up);
      await t.throwsAsync(feed.publish('ws', 1));
      await broker.start();
      await until(feed, true);
    },
  );

  test.serial(`${kind}: close while the broker is unreachable ends every attempt`, async (t) => {
    await broker.stop();
    const feed = make(broker.url, 'switchyard.routes.never');
    feed.start();
    await quietPeriod(300);
    await feed.close();
    await broker.start();
    await quietPeriod(1_000);
    t.false(feed.up, 'no connection after close');
  });
}
