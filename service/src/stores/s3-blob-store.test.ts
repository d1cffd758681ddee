import test from 'ava';
import { Readable } from 'node:stream';
import { isSwitchyardError } from '@switchyard/core';
import { blobStoreConformance, failingStream, uniqueName } from '@switchyard/core/testing';
import { startS3rver, type TestS3 } from '../../../test/support/s3rver.js';
import { S3BlobStore } from './s3-blob-store.js';

const s3: TestS3 = await startS3rver();
const stores: S3BlobStore[] = [];
const open = (config = s3.config) => {
  const store = new S3BlobStore(config);
  stores.push(store);
  return store;
};
test.after.always(async () => {
  for (const store of stores) store.close();
  await s3.close();
});

// s3rver writes every part to disk and hashes it in one process: on a loaded CI machine a 20 MiB
// round-trip has stalled past the 5 s default (an idle socket, 'unavailable'). The conformance
// checks what comes back, not how fast, so its store waits longer (the storage timeouts are tested in test/hardening).
const shared = open({ ...s3.config, timeoutMs: 30_000 });
blobStoreConformance(test, {
  name: 's3',
  create: async () => ({ store: shared }),
  // Nothing listens on port 1.
  createUnavailable: async () => ({ store: open({ ...s3.config, endpoint: 'http://127.0.0.1:1' }) }),
});

test('s3: a body failing after several parts aborts the multipart upload', async (t) => {
  const key = `${uniqueName()}/big.bin`;
  const before = s3.requests().length;
  const boom = new Error('client went away');
  const error = await t.throwsAsync(shared.put(key, failingStream({ bytesBeforeFailure: 12 * 1024 * 1024, error: boom })));
  t.is(error, boom);
  const requests = s3
    .requests()
    .slice(before)
    .filter((line) => line.includes(key.split('/')[0]!));
  t.true(
    requests.some((line) => /^POST .*\?uploads/.test(line)),
    `a multipart upload was started: ${requests.join(', ')}`,
  );
  t.true(
    requests.some((line) => /^DELETE .*uploadId=/.test(line)),
    `and aborted: ${requests.join(', ')}`,
  );
  t.false(
    requests.some((line) => /^POST .*uploadId=/.test(line)),
    'and never completed',
  );
});

test('s3: a missing bucket makes check unavailable; wrong credentials do too', async (t) => {
  for (const config of [
    { ...s3.config, bucket: 'no-such-bucket' },
    { ...s3.config, credentials: { accessKeyId: 'WRONG', secretAccessKey: 'WRONG' } },
  ]) {
    const error = await t.throwsAsync(open(config).check());
    t.true(isSwitchyardError(error) && error.code === 'unavailable', config.bucket);
  }
});

test('s3: sweeping abandoned multipart uploads on a server without ListMultipartUploads (s3rver) says so instead of failing', async (t) => {
  const sweep = await shared.sweepAbandonedWrites(new Date(), { dryRun: false });
  t.deepEqual(sweep.removed, []);
  t.regex(sweep.unsupported ?? '', /cannot list unfinished multipart uploads.*AbortIncompleteMultipartUpload/);
});

test('s3: list pages past 1,000 keys (ListObjectsV2 continuation), every key once', async (t) => {
  // A bucket of its own, so other tests' keys do not count.
  const own = await startS3rver();
  t.teardown(() => own.close());
  const store = open(own.config);
  const keys = Array.from({ length: 1_005 }, (_, i) => `many/k${String(i).padStart(4, '0')}.bin`);
  const queue = [...keys];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let key = queue.shift(); key; key = queue.shift())
        await store.put(key, Readable.from([Buffer.from(key)], { objectMode: false }));
    }),
  );
  const listed: string[] = [];
  for await (const blob of store.list()) listed.push(blob.key);
  t.deepEqual(listed.sort(), keys);
});
