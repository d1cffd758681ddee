import test from 'ava';
import { EventEmitter } from 'node:events';
import { createClock } from '@sinonjs/fake-timers';
import type { BlobStore } from '../../ports/blob-store.js';
import { timeSourceOf } from '../../testing/fake-time.js';
import { IDLE_MS, LOAD_MS, ProbePool, type ProbeCost, type ProbeOutcome, type ProbeWorker } from './probe-pool.js';
import type { FromWorker, ProbeJob, ToWorker } from './probe-protocol.js';

// The pool's deadlines and idle retirement on fake time, with stand-ins for the worker threads
// (hostile-files.test.ts runs the real parsers in real workers).

/** A worker thread as the pool sees it: the test says when it has loaded and what it answers. */
class StandIn extends EventEmitter {
  readonly posted: ToWorker[] = [];
  terminated = false;
  postMessage(message: ToWorker): void {
    this.posted.push(message);
  }
  terminate(): Promise<number> {
    this.terminated = true;
    return Promise.resolve(1);
  }
  unref(): void {}
  say(message: FromWorker): void {
    this.emit('message', message);
  }
}

const JOB: ProbeJob = { kind: 'mp4', type: 'video/mp4', size: 10, head: new Uint8Array(10) };
const LIMITS = { maxBytes: 1024, timeoutMs: 2_000, workers: 1, queue: 1, heapMb: 64 };
/** Never read: the stand-ins ask for no range. */
const NO_BLOBS = {} as BlobStore;

function pool(fake: ReturnType<typeof createClock>) {
  const workers: StandIn[] = [];
  const probes = new ProbePool(LIMITS, {
    time: timeSourceOf(fake),
    startWorker: () => {
      const worker = new StandIn();
      workers.push(worker);
      return worker as unknown as ProbeWorker;
    },
  });
  const probe = () => {
    const result: { outcome?: ProbeOutcome; cost?: ProbeCost } = {};
    void probes.probe(JOB, NO_BLOBS, 'key').then((done) => Object.assign(result, done));
    return result;
  };
  return { probes, workers, probe };
}

test('a parser is ended at timeoutMs after it loaded, not a ms sooner: timeout, its worker terminated', async (t) => {
  const fake = createClock(0);
  const { probes, workers, probe } = pool(fake);
  t.teardown(() => probes.close());
  const result = probe();
  await fake.tickAsync(5_000);
  workers[0]!.say({ loaded: true });
  await fake.tickAsync(LIMITS.timeoutMs - 1);
  t.is(result.outcome, undefined, `parsing at ${LIMITS.timeoutMs - 1} ms`);
  t.false(workers[0]!.terminated);
  await fake.tickAsync(1);
  t.like(result.outcome, { kind: 'timeout', reason: `no answer within ${LIMITS.timeoutMs} ms` });
  t.is(result.cost?.ms, LIMITS.timeoutMs, 'counted from the load, not the start');
  t.true(workers[0]!.terminated);
});

test('a worker that never loads its parser is ended at LOAD_MS, not a ms sooner', async (t) => {
  const fake = createClock(0);
  const { probes, workers, probe } = pool(fake);
  t.teardown(() => probes.close());
  const result = probe();
  await fake.tickAsync(LOAD_MS - 1);
  t.is(result.outcome, undefined);
  await fake.tickAsync(1);
  t.like(result.outcome, { kind: 'timeout', reason: `the parser did not load within ${LOAD_MS} ms` });
  t.true(workers[0]!.terminated);
});

test('a worker that answered is kept for the next file, and retired IDLE_MS after its last job, not a ms sooner', async (t) => {
  const fake = createClock(0);
  const { probes, workers, probe } = pool(fake);
  t.teardown(() => probes.close());
  const first = probe();
  workers[0]!.say({ loaded: true });
  await fake.tickAsync(1_500);
  workers[0]!.say({ facts: { width: 1 } });
  await fake.tickAsync(0);
  t.deepEqual(first, { outcome: { kind: 'ok', facts: { width: 1 } }, cost: { ms: 1_500, bytesRead: 0 } });
  // A second file within the idle time takes the same worker, and its idle time starts again after it.
  await fake.tickAsync(IDLE_MS - 1);
  const second = probe();
  t.is(workers.length, 1, 'the idle worker was taken');
  workers[0]!.say({ loaded: true });
  workers[0]!.say({ failed: 'not an mp4' });
  await fake.tickAsync(0);
  t.like(second.outcome, { kind: 'failed' });
  const releasedAt = fake.now;
  await fake.tickAsync(IDLE_MS - 1);
  t.false(workers[0]!.terminated, `idle ${IDLE_MS - 1} ms`);
  await fake.tickAsync(1);
  t.true(workers[0]!.terminated, `retired at ${releasedAt + IDLE_MS} ms`);
  probe();
  t.is(workers.length, 2, 'the next file starts a worker');
});
