// Two limiters on one private redis-server, as two service instances would
// be: the limit holds across them, and while Redis is away (stopped, or hung
// behind a proxy that stops answering) each falls back to its own
// per-instance limit, counted and logged, and shares again once it is back.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClock } from '@sinonjs/fake-timers';
import { Redis } from 'ioredis';
import { SwitchyardError, type TimeSource } from '@switchyard/core';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { startRedis, type TestBroker } from '../../../test/support/brokers.js';
import { LogCapture } from '../../../test/grpc/support/log-capture.js';
import { connectLimitsRedis } from './limits-redis.js';
import { createSharedRateLimiter } from './shared-rate-limiter.js';
import { createWorkspaceRateLimiter, type RateLimit, type WorkspaceRateLimiter } from './workspace-rate-limiter.js';

interface Instance {
  readonly limiter: WorkspaceRateLimiter;
  readonly logs: LogCapture;
  fallbacks: number;
  /** Of `fallbacks`, the calls the per-instance limit let through. */
  admittedFallbacks: number;
}

/** The answer timeout of the hung-Redis test; the others keep the default (500 ms), as a busy machine needs. */
const SHORT_ANSWER_MS = 100;

/** An instance; with `time`, its answer timeout, probe intervals and per-instance buckets run on it. */
async function instance(url: string, limit: RateLimit, answerTimeoutMs?: number, time?: TimeSource): Promise<Instance> {
  const logs = new LogCapture();
  const redis = await connectLimitsRedis(url, { commandTimeoutMs: 5_000, connectWaitMs: 2_000 }, logs.logger);
  const made: Instance = {
    logs,
    fallbacks: 0,
    admittedFallbacks: 0,
    limiter: createSharedRateLimiter(limit, {
      redis,
      fallback: createWorkspaceRateLimiter(limit, time && (() => time.now().getTime())),
      log: logs.logger,
      onFallback: (admitted) => {
        made.fallbacks += 1;
        if (admitted) made.admittedFallbacks += 1;
      },
      answerTimeoutMs,
      // Short, so the tests see Redis come back quickly.
      probeIntervalMs: 200,
      time,
    }),
  };
  return made;
}

async function instances(url: string, limit: RateLimit, count = 2, answerTimeoutMs?: number, time?: TimeSource): Promise<Instance[]> {
  return Promise.all(Array.from({ length: count }, () => instance(url, limit, answerTimeoutMs, time)));
}

type Outcome = 'admitted' | 'refused';

/** Admitted, or refused as the limit refuses (resource_exhausted with a wait); anything else fails the test. */
async function outcome(call: Promise<void>): Promise<Outcome> {
  try {
    await call;
    return 'admitted';
  } catch (error) {
    if (
      error instanceof SwitchyardError &&
      error.code === 'resource_exhausted' &&
      error.retryAfterMs !== undefined &&
      error.retryAfterMs > 0 &&
      error.retryAfterMs <= 1_000
    )
      return 'refused';
    throw error;
  }
}

/** `perSecond` calls a second for `seconds`, spread round-robin over the instances. */
async function offer(
  all: readonly Instance[],
  workspace: string,
  perSecond: number,
  seconds: number,
): Promise<{ admitted: number; refused: number; elapsedS: number }> {
  const tickMs = 50;
  const perTick = Math.round((perSecond * tickMs) / 1000);
  const calls: Promise<Outcome>[] = [];
  const started = performance.now();
  let next = 0;
  while (performance.now() - started < seconds * 1000) {
    for (let i = 0; i < perTick; i++) calls.push(outcome(all[next++ % all.length]!.limiter.admit(workspace)));
    await sleep(tickMs);
  }
  const elapsedS = (performance.now() - started) / 1000;
  const outcomes = await Promise.all(calls);
  return { admitted: outcomes.filter((o) => o === 'admitted').length, refused: outcomes.filter((o) => o === 'refused').length, elapsedS };
}

/** Admits until the first refusal; the count admitted. */
async function drain(limiter: WorkspaceRateLimiter, workspace: string, most = 1_000): Promise<number> {
  for (let admitted = 0; admitted < most; admitted++) if ((await outcome(limiter.admit(workspace))) === 'refused') return admitted;
  return most;
}

/** Calls until one is judged by Redis again (its log line says so), 10 s at most. */
async function untilShared(one: Instance): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!one.logs.lines().some((line) => String(line['msg']).includes('answering again'))) {
    if (performance.now() > deadline) throw new Error('Redis was not used again within 10 s');
    await outcome(one.limiter.admit(`probe-${randomUUID()}`));
    await sleep(50);
  }
}

const brokers: TestBroker[] = [];
const open: Instance[] = [];
test.after.always(async () => {
  await Promise.all(open.map((one) => one.limiter.close()));
  await Promise.all(brokers.map((broker) => broker.close()));
});
async function redis(): Promise<TestBroker> {
  const broker = await startRedis();
  brokers.push(broker);
  return broker;
}
async function started(url: string, limit: RateLimit, count = 2, answerTimeoutMs?: number, time?: TimeSource): Promise<Instance[]> {
  const made = await instances(url, limit, count, answerTimeoutMs, time);
  open.push(...made);
  return made;
}

test('two instances at 8 times the rate between them admit about the rate, not twice it', async (t) => {
  const broker = await redis();
  const limit = { ratePerSecond: 20, burst: 40 };
  const all = await started(broker.url, limit);
  const seconds = 3;
  const { admitted, refused, elapsedS } = await offer(all, `ws-${randomUUID()}`, limit.ratePerSecond * 8, seconds);
  t.log(`${elapsedS.toFixed(2)} s: ${admitted} admitted, ${refused} refused`);
  // Rate windows started within the run, at the rate each, plus one burst (shared-windows.ts); per-instance
  // limits would admit 2 × (40 + 20 × 3) = 200.
  const most = limit.ratePerSecond * Math.ceil(elapsedS + 1) + (limit.burst - limit.ratePerSecond);
  t.true(admitted <= most, `admitted ${admitted} > ${most}`);
  t.true(admitted >= limit.ratePerSecond * seconds * 0.8, `admitted only ${admitted}`);
  t.true(refused > admitted, 'most of the flood is refused');
  t.deepEqual(
    all.map((one) => one.fallbacks),
    [0, 0],
  );
});

test('what one instance spends, the other cannot; other workspaces are not touched', async (t) => {
  const broker = await redis();
  const limit = { ratePerSecond: 5, burst: 8 };
  const [a, b] = await started(broker.url, limit);
  // The rate window lasts 1 s from its first call: a trial is judged only when it fits in that (a busy
  // machine can stretch it past, and a new window then rightly admits again); up to five trials.
  for (let attempt = 1; ; attempt++) {
    const workspace = `ws-${randomUUID()}`;
    const began = performance.now();
    const spent = await drain(a!.limiter, workspace);
    const other = await outcome(b!.limiter.admit(workspace));
    if (performance.now() - began >= 800 && attempt < 5) continue;
    t.is(spent, limit.burst, 'the rate window (5), then the burst window (3)');
    t.is(other, 'refused');
    break;
  }
  t.is(await outcome(b!.limiter.admit(`ws-${randomUUID()}`)), 'admitted');
  t.deepEqual([a!.fallbacks, b!.fallbacks], [0, 0]);
});

test('with Redis stopped each instance falls back to its own limit, counted and logged once; once it is back the limit is shared again', async (t) => {
  const broker = await redis();
  const limit = { ratePerSecond: 2, burst: 4 };
  const [a, b] = await started(broker.url, limit);
  t.is(await outcome(a!.limiter.admit(`ws-${randomUUID()}`)), 'admitted');

  await broker.stop();
  const workspace = `ws-${randomUUID()}`;
  // Each instance has a bucket of its own now: both admit a burst of the same workspace.
  const spentA = await drain(a!.limiter, workspace);
  const spentB = await drain(b!.limiter, workspace);
  t.true(spentA >= limit.burst && spentA <= limit.burst + 1, `a admitted ${spentA}`);
  t.true(spentB >= limit.burst && spentB <= limit.burst + 1, `b admitted ${spentB}`);
  t.true(a!.fallbacks >= spentA + 1, `a counted ${a!.fallbacks} fallbacks`);
  t.true(b!.fallbacks >= spentB + 1, `b counted ${b!.fallbacks} fallbacks`);
  t.deepEqual([a!.admittedFallbacks, b!.admittedFallbacks], [spentA, spentB], 'the ones let through counted apart');
  const warnings = (one: Instance) => one.logs.lines().filter((line) => String(line['msg']).includes('not answering'));
  t.is(warnings(a!).length, 1, 'said once, not per call');

  await broker.start();
  await untilShared(a!);
  await untilShared(b!);
  t.is(warnings(a!).length, 1);
  const counted = a!.fallbacks;
  const shared = `ws-${randomUUID()}`;
  t.true((await drain(a!.limiter, shared)) >= limit.burst);
  t.is(await outcome(b!.limiter.admit(shared)), 'refused', 'b is refused what a spent: shared again');
  t.is(a!.fallbacks, counted, 'no fallback while Redis answers');
});

test('a Redis that stops answering costs the answer timeout, once per probe interval; calls in between are judged at once under the per-instance limit', async (t) => {
  const broker = await redis();
  const proxy = await freezableProxy(broker.port);
  t.teardown(() => proxy.close());
  const limit = { ratePerSecond: 50, burst: 100 };
  // The answer timeout (100 ms) and the probe interval (200 ms) run on fake time; Redis and the proxy are real.
  const fake = createClock(0);
  const [one] = await started(proxy.url, limit, 1, SHORT_ANSWER_MS, timeSourceOf(fake));
  t.is(await outcome(one!.limiter.admit(`ws-${randomUUID()}`)), 'admitted');

  proxy.freeze();
  const workspace = `ws-${randomUUID()}`;
  /** A call that asks the hung Redis: unanswered until the answer timeout, then judged by the per-instance limit. */
  const waitsForTheTimeout = async (): Promise<void> => {
    const fallbacks = one!.fallbacks;
    let decided: Outcome | undefined;
    void outcome(one!.limiter.admit(workspace)).then((result) => (decided = result));
    await fake.tickAsync(SHORT_ANSWER_MS - 1);
    t.is(decided, undefined, `still waiting for Redis at ${SHORT_ANSWER_MS - 1} ms`);
    await fake.tickAsync(1);
    // The timeout rejects after this process has read its sockets (a turn of the real event loop).
    await eventually(() => decided !== undefined, { timeout: 10_000, interval: 0, message: 'the call decided' });
    t.is(decided, 'admitted');
    t.is(one!.fallbacks, fallbacks + 1);
  };
  await waitsForTheTimeout();
  // Until the probe interval has passed, calls go straight to the per-instance limit: none waits on Redis.
  for (let at = 0; at < 200; at += 50) {
    t.is(await outcome(one!.limiter.admit(workspace)), 'admitted', `judged at once ${at} ms into the interval`);
    await fake.tickAsync(at === 150 ? 49 : 50);
  }
  t.is(await outcome(one!.limiter.admit(workspace)), 'admitted', 'judged at once 199 ms into the interval');
  await fake.tickAsync(1);
  // 200 ms on: one call asks Redis again, and waits.
  await waitsForTheTimeout();
  t.is(one!.fallbacks, 2 + 5);
});

test.serial('a stall of this process longer than the answer timeout is not taken for Redis not answering', async (t) => {
  const broker = await redis();
  const [one] = await started(broker.url, { ratePerSecond: 50, burst: 100 }, 1, SHORT_ANSWER_MS);
  t.is(await outcome(one!.limiter.admit(`ws-${randomUUID()}`)), 'admitted');
  for (let i = 0; i < 3; i++) {
    const call = outcome(one!.limiter.admit(`ws-${randomUUID()}`));
    // Redis answers meanwhile; the answer waits in the socket while the event loop is blocked past the timeout.
    const until = performance.now() + SHORT_ANSWER_MS * 3;
    while (performance.now() < until);
    t.is(await call, 'admitted');
  }
  t.is(one!.fallbacks, 0);
  t.false(one!.logs.lines().some((line) => String(line['msg']).includes('not answering')));
});

test('started while Redis is down: per-instance limits at once, shared once Redis comes up', async (t) => {
  const broker = await redis();
  await broker.stop();
  const limit = { ratePerSecond: 2, burst: 2 };
  const logs = new LogCapture();
  // The start-up wait runs on fake time: it gives up at 200 ms, not 199.
  const fake = createClock(0);
  let redisClient: Redis | undefined;
  const connecting = connectLimitsRedis(
    broker.url,
    { commandTimeoutMs: 5_000, connectWaitMs: 200, timers: timeSourceOf(fake) },
    logs.logger,
  );
  void connecting.then((client) => (redisClient = client));
  await fake.tickAsync(199);
  t.is(redisClient, undefined, 'still waiting for Redis at 199 ms');
  await fake.tickAsync(1);
  await connecting;
  const limiter = createSharedRateLimiter(limit, {
    redis: await connecting,
    fallback: createWorkspaceRateLimiter(limit),
    log: logs.logger,
    probeIntervalMs: 200,
  });
  const one: Instance = { limiter, logs, fallbacks: 0, admittedFallbacks: 0 };
  open.push(one);
  t.true(logs.lines().some((line) => String(line['msg']).includes('not reachable at start')));
  t.is(await outcome(limiter.admit(`ws-${randomUUID()}`)), 'admitted');
  await broker.start();
  await untilShared(one);
  t.pass();
});

test('close ends the connection and is idempotent', async (t) => {
  const broker = await redis();
  const admin = new Redis(broker.url);
  t.teardown(() => admin.disconnect());
  const clients = async () =>
    String(await admin.call('CLIENT', 'LIST'))
      .trim()
      .split('\n').length;
  const alone = await clients();
  const [one] = await instances(broker.url, { ratePerSecond: 1, burst: 1 }, 1);
  t.is(await clients(), alone + 1);
  await Promise.all([one!.limiter.close(), one!.limiter.close()]);
  await one!.limiter.close();
  // Redis frees a client just after answering its QUIT: give it a moment.
  for (let waited = 0; (await clients()) > alone && waited < 2_000; waited += 50) await sleep(50);
  t.is(await clients(), alone, 'the connection is gone');
  // Judged locally now (the connection is gone), never an error.
  t.is(await outcome(one!.limiter.admit('w')), 'admitted');
  t.is(await outcome(one!.limiter.admit('w')), 'refused');
});

/** A TCP proxy to a local port that can stop forwarding answers while keeping connections open: a hung Redis. */
async function freezableProxy(port: number): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => void (frozen || upstream.write(chunk)));
    upstream.on('data', (chunk) => void (frozen || client.write(chunk)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    freeze: () => void (frozen = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
