// Two service instances sharing one MySQL database and one blob store (s3rver):
// the invariants that make the service safe to scale out.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { collectGarbage } from '@switchyard/core';
import { openStorage } from '@switchyard/service';
import { noise, sha256 } from './support/fixtures.js';
import { filePath } from './service-suite.js';
import { blobKeys, mysqlS3Target, type StorageTarget } from './support/storage-targets.js';
import { startTestService, type TestService } from './support/test-service.js';

const target = await mysqlS3Target();

if (!target) {
  test.skip('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
} else {
  defineTwoInstanceTests(target);
}

function defineTwoInstanceTests(target: StorageTarget): void {
  let a: TestService;
  let b: TestService;

  test.before(async () => {
    const secret = randomBytes(32).toString('base64url');
    a = await startTestService({ storage: target.storage, dataDir: target.dataDir, secret });
    b = await startTestService({ storage: target.storage, dataDir: target.dataDir, secret });
  });
  test.after.always(async () => {
    await a?.stop();
    await b?.stop();
    await target.cleanup();
  });

  test('concurrent creates of one route across both instances: exactly one succeeds, the rest are ALREADY_EXISTS', async (t) => {
    const auth = await a.auth('race-routes');
    const attempts = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).clients.createRoute(auth, { method: 'PUT', path: `/race/:id`, handler: `handler${i}` }),
    );
    const outcomes = await Promise.allSettled(attempts);
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as ServiceError] : []));
    t.is(won.length, 1);
    t.deepEqual(
      lost.map((error) => Status[error.code]),
      Array.from({ length: 19 }, () => 'ALREADY_EXISTS'),
    );
    // Both instances see the winner.
    const winner = (won[0] as PromiseFulfilledResult<{ id: string }>).value;
    t.is((await b.clients.getRoute(auth, winner.id)).id, winner.id);
    t.is((await a.clients.matchRoute(auth, 'PUT', '/race/7')).route?.id, winner.id);
  });

  test('50 concurrent replaces of one asset: the record matches its stored bytes, and gc loses and leaks no blob', async (t) => {
    const auth = await a.auth('race-assets');
    const original = await a.clients.upload(auth, { label: 'contended' }, noise(50_000, 1));
    const contents = Array.from({ length: 50 }, (_, i) => noise(20_000 + i * 1000, i + 100));
    const outcomes = await Promise.allSettled(
      contents.map((bytes, i) => (i % 2 === 0 ? a : b).clients.replace(auth, { id: original.id }, bytes)),
    );
    const succeeded = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failed = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as ServiceError] : []));
    t.true(succeeded.length >= 1, 'at least one replace wins');
    for (const error of failed) t.is(Status[error.code], 'ABORTED', `a losing replace is retried or ABORTED, not ${error.details}`);

    const record = await b.clients.getAsset(auth, original.id);
    t.is(record.label, 'contended');
    t.true(
      succeeded.some((asset) => asset.sha256 === record.sha256),
      'the record holds one of the acknowledged replaces',
    );
    const stored = await a.clients.readFile({ path: filePath(record) });
    t.is(sha256(stored.bytes), record.sha256, 'the record points at exactly its bytes');
    t.is(stored.bytes.length, record.size);

    // gc with no grace period: every blob but the current one and the kept versions' (keepVersions, 5) is garbage.
    const storage = await openStorage(target.storage, { migrate: false });
    try {
      await collectGarbage({ assetStore: storage.assetStore, blobStore: storage.blobStore, graceMs: 0 });
    } finally {
      await storage.close();
    }
    const keys = await blobKeys(target.storage);
    const versions = await a.clients.asset('listAssetVersions', auth, { id: original.id });
    t.is(versions.versions.length, 5, 'the default keepVersions');
    t.is(keys.length, 1 + 5, `exactly the current blob and the versions' survive: ${keys.join(', ')}`);
    const after = await a.clients.readFile({ path: filePath(record) });
    t.is(sha256(after.bytes), record.sha256, 'gc kept the blob the record points at');
  });
}
