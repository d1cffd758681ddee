import test from 'ava';
import { executionAsyncId } from 'node:async_hooks';
import { withoutQueryTimeout } from './mysql-query-timeout.js';

/** The async id a promise reaction runs under: 0 unless something turned Node's promise hooks on. */
const promiseReactionId = () => new Promise<number>((resolve) => void Promise.resolve().then(() => resolve(executionAsyncId())));

/** Whether this worker starts without promise hooks, so that turning them on and off shows. */
const hooksOffAtStart = (await promiseReactionId()) === 0;

(hooksOffAtStart ? test : test.skip)(
  'a migration turns promise hooks on only while it runs (their cost would otherwise fall on every later promise)',
  async (t) => {
    t.not(await withoutQueryTimeout(async () => promiseReactionId()), 0, 'on while a migration runs, which tracks it');
    t.is(await promiseReactionId(), 0, 'off again afterwards');
    // Two at once: off only once both have finished.
    let release!: () => void;
    const first = withoutQueryTimeout(() => new Promise<void>((resolve) => (release = resolve)));
    await withoutQueryTimeout(async () => undefined);
    t.not(await promiseReactionId(), 0, 'still on: the first migration runs');
    release();
    await first;
    t.is(await promiseReactionId(), 0, 'off once both have finished');
  },
);
