import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import type { RouteStore } from '../ports/route-store.js';
import { timeSourceOf } from '../testing/fake-time.js';
import { sampleRoute } from '../testing/route-store-conformance.js';
import { RevisionWatch, type RevisionWatchOptions } from './revision-watch.js';

/** The memory store, counting `revision` reads (what a watched workspace costs the database). */
function countingStore() {
  const store = new MemoryRouteStore();
  const counted = { reads: 0 };
  const revisionOnly: Pick<RouteStore, 'revision'> = {
    revision: (workspace) => {
      counted.reads += 1;
      return store.revision(workspace);
    },
  };
  /** A write through another instance: committed in the store, not announced here. */
  const writeElsewhere = async (workspace: string) =>
    (await store.insert(sampleRoute(workspace, { path: `/p/${Math.random()}`, shape: `/p/${Math.random()}` }))).revision;
  return { store, revisionOnly, counted, writeElsewhere };
}

/** A revision watch on fake time (`fake`), its staggering drawn at the middle of its range unless `random` says otherwise. */
function watching(store: Pick<RouteStore, 'revision'>, options: Omit<RevisionWatchOptions, 'timers'>) {
  const fake = createClock(0);
  const watch = new RevisionWatch(store, { random: () => 0.5, ...options, timers: timeSourceOf(fake) });
  return { fake, watch };
}

/** Whether `promise` has settled, and with what, read at any later point. */
function settlement<T>(promise: Promise<T>): { settled: boolean; value?: T } {
  const state: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => Object.assign(state, { settled: true, value }));
  return state;
}

test('without a feed, a watched workspace is read every pollMs and a change elsewhere wakes its watcher at the next poll', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, safetyPollMs: 60_000 });
  const waiting = settlement(watch.wait('ws', 0, 3_000, undefined));
  await fake.tickAsync(99);
  t.is(counted.reads, 4, 'read at 20, 40, 60 and 80 ms');
  await writeElsewhere('ws');
  await fake.tickAsync(0);
  t.false(waiting.settled, 'not before the next poll, at 100 ms');
  await fake.tickAsync(1);
  t.deepEqual(waiting, { settled: true, value: true });
  t.is(counted.reads, 5);
});

test('with the feed up, a message wakes the watcher without a read, and an idle watched workspace costs no reads', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const waiting = settlement(watch.wait('ws', 0, 3_000, undefined));
  // One read when the workspace starts being watched (the feed may have spoken before it listened), then none.
  await fake.tickAsync(0);
  t.is(counted.reads, 1, 'the first read');
  await fake.tickAsync(2_000);
  t.is(counted.reads, 1, 'no polling while the feed is up');
  const revision = await writeElsewhere('ws');
  await feed.publish('ws', revision);
  await fake.tickAsync(0);
  t.deepEqual(waiting, { settled: true, value: true });
  t.is(counted.reads, 1, 'the message carried the revision');
  // The watcher's next wait, right after it read the change, needs no read either; it ends at its timeout.
  const again = settlement(watch.wait('ws', revision, 100, undefined));
  await fake.tickAsync(99);
  t.false(again.settled);
  await fake.tickAsync(1);
  t.deepEqual(again, { settled: true, value: false });
  t.is(counted.reads, 1);
});

test('with the feed up, a change whose message was lost is found by the safety poll, in the second half of its interval', async (t) => {
  for (const [random, dueAt] of [
    [0, 150],
    [0.5, 225],
    [0.999, 299],
  ] as const) {
    const { revisionOnly, counted, writeElsewhere } = countingStore();
    const feed = new LoopbackChangeFeed();
    const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 300, random: () => random });
    const waiting = settlement(watch.wait('ws', 0, 5_000, undefined));
    await fake.tickAsync(0);
    t.is(counted.reads, 1, 'the first read');
    await writeElsewhere('ws'); // no message
    await fake.tickAsync(dueAt - 1);
    t.false(waiting.settled, `not before ${dueAt} ms`);
    await fake.tickAsync(1);
    t.deepEqual(waiting, { settled: true, value: true }, `found at ${dueAt} ms`);
    t.is(counted.reads, 2);
  }
});

test('a watcher waiting again and again (heartbeats) does not postpone the safety poll', async (t) => {
  const { revisionOnly, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  // The safety poll is due at 300 ms (400 × 0.75).
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 400 });
  const first = settlement(watch.wait('ws', 0, 50, undefined));
  await fake.tickAsync(50);
  t.deepEqual(first, { settled: true, value: false });
  await writeElsewhere('ws'); // no message
  // Each wait ends (a heartbeat) after 100 ms, before the safety poll would be due were it rescheduled by each.
  let foundAt: number | undefined;
  while (foundAt === undefined && fake.now < 2_000) {
    const waiting = watch.wait('ws', 0, 100, undefined);
    void waiting.then((moved) => void (moved && (foundAt = fake.now)));
    await fake.tickAsync(100);
  }
  t.is(foundAt, 300);
});

test('while the feed is down, polling at pollMs takes over; when it is back, one catch-up read each, then quiet', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const first = settlement(watch.wait('ws', 0, 5_000, undefined));
  const other = settlement(watch.wait('other', 0, 5_000, undefined));
  await fake.tickAsync(0);
  t.is(counted.reads, 2, 'the first reads');
  feed.close();
  // Staggered over one interval (here at its middle, 10 ms), then every 20 ms: 10, 30, 50, 70 and 90.
  await fake.tickAsync(99);
  t.is(counted.reads, 2 + 2 * 5, 'fast polling of both workspaces while the feed is down');
  await writeElsewhere('ws'); // while down, no message can tell
  await fake.tickAsync(11);
  t.deepEqual(first, { settled: true, value: true }, 'found at the poll at 110 ms');
  const atUp = counted.reads;
  feed.start();
  await fake.tickAsync(0);
  t.is(counted.reads - atUp, 1, 'one catch-up read, for the workspace still watched');
  await fake.tickAsync(2_000);
  t.is(counted.reads - atUp, 1, 'then quiet');
  await writeElsewhere('other');
  await feed.publish('other', 1);
  await fake.tickAsync(0);
  t.deepEqual(other, { settled: true, value: true });
});

test('when the feed comes back, the catch-up read finds what was published while it was down', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  // A slow pollMs, so only the catch-up can find the change in time.
  const { fake, watch } = watching(revisionOnly, { pollMs: 60_000, feed, safetyPollMs: 60_000 });
  const waiting = settlement(watch.wait('ws', 0, 10_000, undefined));
  await fake.tickAsync(0);
  t.is(counted.reads, 1, 'the first read');
  feed.close();
  const revision = await writeElsewhere('ws');
  await t.throwsAsync(feed.publish('ws', revision), undefined, 'a closed feed refuses to publish');
  await fake.tickAsync(100);
  t.false(waiting.settled);
  feed.start();
  await fake.tickAsync(0);
  t.deepEqual(waiting, { settled: true, value: true }, 'woken when the feed came back, at 100 ms');
  t.is(counted.reads, 2);
});

test('a message from elsewhere (another deployment on the broker) wakes once, then is checked, not trusted', async (t) => {
  const { revisionOnly, counted } = countingStore();
  const feed = new LoopbackChangeFeed();
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const waiting = settlement(watch.wait('ws', 0, 3_000, undefined));
  await fake.tickAsync(0);
  t.is(counted.reads, 1, 'the first read');
  await feed.publish('ws', 1_000);
  await fake.tickAsync(0);
  t.deepEqual(waiting, { settled: true, value: true }, 'woken: the watcher reads its changes and finds none');
  // Waiting again at its own revision: one read says the store is at 0, so the watcher sleeps instead of spinning.
  const again = settlement(watch.wait('ws', 0, 200, undefined));
  await fake.tickAsync(199);
  t.false(again.settled, 'asleep at 199 ms');
  await fake.tickAsync(1);
  t.deepEqual(again, { settled: true, value: false }, 'its timeout, at 200 ms');
  t.is(counted.reads, 2);
});

test('a write through this process wakes its watchers without a read, feed or not', async (t) => {
  for (const feed of [undefined, new LoopbackChangeFeed()]) {
    const { revisionOnly, counted } = countingStore();
    const { fake, watch } = watching(revisionOnly, { pollMs: 60_000, feed, safetyPollMs: 60_000 });
    const waiting = settlement(watch.wait('ws', 3, 3_000, undefined));
    await fake.tickAsync(20);
    const before = counted.reads;
    watch.committed('ws', 4);
    await fake.tickAsync(0);
    t.deepEqual(waiting, { settled: true, value: true });
    t.is(counted.reads, before);
  }
});

test('safety polls of many workspaces are spread over the second half of the interval, each where its draw puts it', async (t) => {
  const { revisionOnly } = countingStore();
  const fake = createClock(0);
  const readsAt = new Map<string, number[]>();
  const store: Pick<RouteStore, 'revision'> = {
    revision: async (workspace) => {
      readsAt.set(workspace, [...(readsAt.get(workspace) ?? []), fake.now]);
      return revisionOnly.revision(workspace);
    },
  };
  // Draws spread evenly over [0, 1), one per workspace in the order they are watched.
  let draws = 0;
  const watch = new RevisionWatch(store, {
    pollMs: 20,
    feed: new LoopbackChangeFeed(),
    safetyPollMs: 400,
    timers: timeSourceOf(fake),
    random: () => (draws++ % 100) / 100,
  });
  const stop = new AbortController();
  const waits = Array.from({ length: 100 }, (_, i) => watch.wait(`ws-${i}`, 0, 10_000, stop.signal));
  await fake.tickAsync(399);
  stop.abort();
  await Promise.all(waits);
  // The first read of each is at once; the second is its first safety poll, at 400 × (0.5 + draw / 2) in whole ms.
  const second = Array.from({ length: 100 }, (_, i) => readsAt.get(`ws-${i}`)?.[1]);
  t.deepEqual(
    second,
    Array.from({ length: 100 }, (_, i) => Math.trunc(400 * (0.5 + i / 100 / 2))),
  );
  t.is(new Set(second).size, 100, 'no two in one ms');
  t.true(second.every((at) => at !== undefined && at >= 200 && at < 400));
});

test("a watch of one log is not woken by the other log's messages on the same feed", async (t) => {
  const { revisionOnly, counted } = countingStore();
  const feed = new LoopbackChangeFeed();
  const { fake, watch } = watching(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000, log: 'assets' });
  const waiting = settlement(watch.wait('ws', 0, 3_000, undefined));
  await fake.tickAsync(0);
  await feed.publish('ws', 5, 'routes');
  await feed.publish('ws', 5);
  await fake.tickAsync(0);
  t.false(waiting.settled, 'route revisions say nothing of the assets');
  t.is(counted.reads, 1, 'nor make it read');
  await feed.publish('ws', 1, 'assets');
  await fake.tickAsync(0);
  t.deepEqual(waiting, { settled: true, value: true }, 'an asset message wakes it');
});
