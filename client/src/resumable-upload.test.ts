import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { bytesSource } from './resumable-source.js';
import { uploadResumably, type ResumableUploadClients } from './resumable-upload.js';

// The waits between retries on fake time, against stand-in clients whose appends fail as the test says
// (test/client/resumable-upload.test.ts runs the real service).

/** Clients whose appends fail with `failures` in turn, then finish the upload; each call is recorded with its fake time. */
function standIns(fake: ReturnType<typeof createClock>, failures: ConnectError[]) {
  const calls: [string, number][] = [];
  const upload = { id: 'up_1', offset: 0n, length: 4n, assetId: '' };
  const clients = {
    uploads: {
      createUpload: () => (calls.push(['create', fake.now]), Promise.resolve(upload)),
      getUpload: () => (calls.push(['get', fake.now]), Promise.resolve(upload)),
      appendUpload: async () => {
        calls.push(['append', fake.now]);
        const failure = failures.shift();
        if (failure) throw failure;
        return { ...upload, offset: 4n, assetId: 'as_1' };
      },
    },
    assets: { getAsset: () => (calls.push(['asset', fake.now]), Promise.resolve({ id: 'as_1' })) },
  } as unknown as ResumableUploadClients;
  return { clients, calls };
}

const unavailable = (retryAfterMs?: number) =>
  new ConnectError(
    'try later',
    Code.Unavailable,
    retryAfterMs === undefined ? undefined : { 'switchyard-retry-after-ms': String(retryAfterMs) },
  );

test('a failed append is retried after 500 ms, then 1,000 ms (not a ms sooner), asking the offset again before each', async (t) => {
  const fake = createClock(0);
  const { clients, calls } = standIns(fake, [unavailable(), unavailable()]);
  const done = uploadResumably(clients, bytesSource(new Uint8Array(4)), { timers: timeSourceOf(fake) });
  await fake.tickAsync(499);
  t.deepEqual(calls, [
    ['create', 0],
    ['append', 0],
  ]);
  await fake.tickAsync(1);
  await fake.tickAsync(999);
  t.deepEqual(calls.slice(2), [
    ['get', 500],
    ['append', 500],
  ]);
  await fake.tickAsync(1);
  t.like(await done, { id: 'as_1' });
  t.deepEqual(calls.slice(4), [
    ['get', 1_500],
    ['append', 1_500],
    ['asset', 1_500],
  ]);
});

test("the service's Retry-After, when longer than the backoff, is the wait", async (t) => {
  const fake = createClock(0);
  const { clients, calls } = standIns(fake, [unavailable(3_000)]);
  const done = uploadResumably(clients, bytesSource(new Uint8Array(4)), { timers: timeSourceOf(fake) });
  await fake.tickAsync(2_999);
  t.is(calls.length, 2, 'waiting');
  await fake.tickAsync(1);
  t.like(await done, { id: 'as_1' });
  t.deepEqual(calls[2], ['get', 3_000]);
});

test('an abort during the wait ends the upload canceled, and no call follows', async (t) => {
  const fake = createClock(0);
  const { clients, calls } = standIns(fake, [unavailable()]);
  const controller = new AbortController();
  const done = uploadResumably(clients, bytesSource(new Uint8Array(4)), { timers: timeSourceOf(fake), signal: controller.signal });
  await fake.tickAsync(100);
  controller.abort();
  const error = await t.throwsAsync(done);
  t.is(ConnectError.from(error).code, Code.Canceled);
  await fake.tickAsync(10_000);
  t.is(calls.length, 2);
  t.is(fake.countTimers(), 0, 'the wait was cleared');
});
