import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoopbackChangeFeed } from '../memory/loopback-change-feed.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import type { RouteStore } from '../ports/route-store.js';
import { sampleRoute } from '../testing/route-store-conformance.js';
import { RevisionWatch } from './revision-watch.js';

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

/** Resolves when `condition` holds, polling every 5 ms; fails after 3 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** How long `promise` takes, and what it resolved to. */
async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - started };
}

test('without a feed, a watched workspace is read every pollMs and a change elsewhere wakes its watcher', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, safetyPollMs: 60_000 });
  const waiting = timed(watch.wait('ws', 0, 3_000, undefined));
  await until(() => counted.reads >= 5, 'repeated polls');
  await writeElsewhere('ws');
  const { value, ms } = await waiting;
  t.true(value);
  t.true(ms < 1_000, `woke after ${ms} ms`);
});

test('with the feed up, a message wakes the watcher without a read, and an idle watched workspace costs no reads', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const waiting = timed(watch.wait('ws', 0, 3_000, undefined));
  // One read when the workspace starts being watched (the feed may have spoken before it listened), then none.
  await until(() => counted.reads === 1, 'the first read');
  await sleep(300);
  t.is(counted.reads, 1, 'no polling while the feed is up');
  const revision = await writeElsewhere('ws');
  await feed.publish('ws', revision);
  const { value, ms } = await waiting;
  t.true(value);
  t.true(ms < 3_000);
  t.is(counted.reads, 1, 'the message carried the revision');
  // The watcher's next wait, right after it read the change, needs no read either.
  t.false(await watch.wait('ws', revision, 100, undefined));
  t.is(counted.reads, 1);
});

test('with the feed up, a change whose message was lost is found by the safety poll', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, feed, safetyPollMs: 300 });
  const waiting = timed(watch.wait('ws', 0, 5_000, undefined));
  await until(() => counted.reads === 1, 'the first read');
  await writeElsewhere('ws'); // no message
  const { value, ms } = await waiting;
  t.true(value);
  t.true(ms >= 100 && ms < 2_000, `found after ${ms} ms (safety interval 300 ms, polled in its second half)`);
  t.true(counted.reads <= 3, `${counted.reads} reads`);
});

test('a watcher waiting again and again (heartbeats) does not postpone the safety poll', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, feed, safetyPollMs: 400 });
  t.false(await watch.wait('ws', 0, 50, undefined));
  await writeElsewhere('ws'); // no message
  const started = performance.now();
  // Each wait ends (a heartbeat) before the earliest safety poll (200 ms) would be due, were it rescheduled.
  while (!(await watch.wait('ws', 0, 100, undefined))) {
    if (performance.now() - started > 3_000) return t.fail(`no safety poll within 3 s (${counted.reads} reads)`);
  }
  t.pass(`found after ${(performance.now() - started).toFixed(0)} ms`);
});

test('while the feed is down, polling at pollMs takes over; when it is back, one catch-up read each, then quiet', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const first = watch.wait('ws', 0, 5_000, undefined);
  const other = watch.wait('other', 0, 5_000, undefined);
  await until(() => counted.reads === 2, 'the first reads');
  feed.close();
  await until(() => counted.reads >= 2 + 2 * 5, 'fast polling of both workspaces while the feed is down');
  await writeElsewhere('ws'); // while down, no message can tell
  t.true((await timed(first)).ms < 5_000);
  feed.start();
  const atUp = counted.reads;
  await sleep(300);
  t.true(counted.reads - atUp <= 2, `${counted.reads - atUp} reads after the feed came back: one catch-up for the one still watched`);
  await writeElsewhere('other');
  await feed.publish('other', 1);
  t.true(await other);
});

test('when the feed comes back, the catch-up read finds what was published while it was down', async (t) => {
  const { revisionOnly, counted, writeElsewhere } = countingStore();
  const feed = new LoopbackChangeFeed();
  // A slow pollMs, so only the catch-up can find the change in time.
  const watch = new RevisionWatch(revisionOnly, { pollMs: 60_000, feed, safetyPollMs: 60_000 });
  const waiting = timed(watch.wait('ws', 0, 10_000, undefined));
  await until(() => counted.reads === 1, 'the first read');
  feed.close();
  const revision = await writeElsewhere('ws');
  await t.throwsAsync(feed.publish('ws', revision), undefined, 'a closed feed refuses to publish');
  await sleep(100);
  feed.start();
  const { value, ms } = await waiting;
  t.true(value);
  t.true(ms < 3_000, `woke ${ms} ms after the watch began`);
  t.is(counted.reads, 2);
});

test('a message from elsewhere (another deployment on the broker) wakes once, then is checked, not trusted', async (t) => {
  const { revisionOnly, counted } = countingStore();
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(revisionOnly, { pollMs: 20, feed, safetyPollMs: 60_000 });
  const waiting = watch.wait('ws', 0, 3_000, undefined);
  await until(() => counted.reads === 1, 'the first read');
  await feed.publish('ws', 1_000);
  t.true(await waiting, 'woken: the watcher reads its changes and finds none');
  // Waiting again at its own revision: one read says the store is at 0, so the watcher sleeps instead of spinning.
  const again = await timed(watch.wait('ws', 0, 200, undefined));
  t.false(again.value);
  t.true(again.ms >= 150, `slept ${again.ms} ms`);
  t.is(counted.reads, 2);
});

test('a write through this process wakes its watchers without a read, feed or not', async (t) => {
  for (const feed of [undefined, new LoopbackChangeFeed()]) {
    const { revisionOnly, counted } = countingStore();
    const watch = new RevisionWatch(revisionOnly, { pollMs: 60_000, feed, safetyPollMs: 60_000 });
    const waiting = watch.wait('ws', 3, 3_000, undefined);
    await sleep(20);
    const before = counted.reads;
    watch.committed('ws', 4);
    t.true(await waiting);
    t.is(counted.reads, before);
  }
});

test('safety polls of many workspaces are spread over the interval, not one tick', async (t) => {
  const { revisionOnly } = countingStore();
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  const store: Pick<RouteStore, 'revision'> = {
    revision: async (workspace) => {
      (first.has(workspace) ? second : first).set(workspace, performance.now());
      return revisionOnly.revision(workspace);
    },
  };
  const feed = new LoopbackChangeFeed();
  const watch = new RevisionWatch(store, { pollMs: 20, feed, safetyPollMs: 400 });
  const stop = new AbortController();
  const waits = Array.from({ length: 100 }, (_, i) => watch.wait(`ws-${i}`, 0, 10_000, stop.signal));
  // The first read of each is at once; the second is its first safety poll.
  await until(() => second.size === 100, 'a safety poll of every workspace');
  stop.abort();
  await Promise.all(waits);
  const delays = [...second].map(([workspace, at]) => at - first.get(workspace)!);
  t.true(Math.min(...delays) >= 190, `none before half the interval: ${Math.min(...delays).toFixed(0)} ms`);
  t.true(Math.max(...delays) - Math.min(...delays) >= 100, `spread over ${(Math.max(...delays) - Math.min(...delays)).toFixed(0)} ms`);
  const buckets = new Map<number, number>();
  for (const delay of delays) buckets.set(Math.floor(delay / 20), (buckets.get(Math.floor(delay / 20)) ?? 0) + 1);
  t.true(Math.max(...buckets.values()) <= 50, `at most half in one 20 ms slice: ${Math.max(...buckets.values())}`);
});
