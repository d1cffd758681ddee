// Versions and trash end to end over gRPC (issue 43), on SQLite + disk and on MySQL + S3 (s3rver): a real
// service, the generated clients, and the stores read straight for what must be gone. Retention is driven by
// an injected clock handed to collectGarbage (no waiting). MySQL is skipped only when unreachable and
// REQUIRE_MYSQL is unset.
import test, { type ExecutionContext } from 'ava';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { collectGarbage, type AssetStore, type BlobStore } from '@switchyard/core';
import { createManualClock } from '@switchyard/core/testing';
import { openStorage } from '@switchyard/service';
import type { AssetVersion, ReadAssetVersionResponse } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { sha256 } from './support/fixtures.js';
import { filePath } from './service-suite.js';
import { mysqlS3Target, sqliteDiskTarget, type StorageTarget } from './support/storage-targets.js';
import { startTestService, type TestService } from './support/test-service.js';

const DAY = 24 * 60 * 60 * 1000;
/** Ten years: collectGarbage's orphan scan then touches nothing, so only retention is under test. */
const NO_ORPHAN_SCAN = 10 * 365 * DAY;
const file = (i: number) => Buffer.from(`version ${i} of the file `.repeat(50 + i));

const targets: StorageTarget[] = [await sqliteDiskTarget()];
const mysql = await mysqlS3Target();
if (mysql) targets.push(mysql);
else test.skip('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);

for (const target of targets) defineCases(target);

function defineCases(target: StorageTarget): void {
  let svc: TestService;
  const title = (text: string) => `${target.name}: ${text}`;
  const ws = (name: string) => `${name}-${target.name}`;

  test.before(async () => {
    svc = await startTestService({ storage: target.storage, dataDir: target.dataDir });
  });
  test.after.always(async () => {
    await svc?.stop();
    await target.cleanup();
  });

  /** A version's bytes through ReadAssetVersion, with the version it names first. */
  async function readVersion(auth: Metadata, id: string, versionId: string): Promise<{ version: AssetVersion; bytes: Buffer }> {
    const call = svc.clients.assets.readAssetVersion({ id, versionId }, auth);
    let version: AssetVersion | undefined;
    const parts: Buffer[] = [];
    for await (const message of call as AsyncIterable<ReadAssetVersionResponse>) {
      if (message.version) version = message.version;
      if (message.chunk) parts.push(message.chunk);
    }
    if (!version) throw new Error('ReadAssetVersion sent no version');
    return { version, bytes: Buffer.concat(parts) };
  }

  async function withStores<T>(
    run: (stores: { assetStore: AssetStore; blobStore: BlobStore; blobKeys: () => Promise<string[]> }) => Promise<T>,
  ): Promise<T> {
    const storage = await openStorage(target.storage, { migrate: false });
    try {
      const blobKeys = async () => {
        const keys: string[] = [];
        for await (const blob of storage.blobStore.list()) keys.push(blob.key);
        return keys.sort();
      };
      return await run({ assetStore: storage.assetStore, blobStore: storage.blobStore, blobKeys });
    } finally {
      await storage.close();
    }
  }

  async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Status): Promise<void> {
    const error = (await t.throwsAsync(call)) as ServiceError | undefined;
    t.is(error && Status[error.code], Status[code], error?.details);
  }

  test(title('five replaces keep five versions, each readable with its sha256; restoring the second makes it current'), async (t) => {
    const auth = await svc.auth(ws('five'));
    const asset = await svc.clients.upload(auth, { filename: 'v0.txt' }, file(0));
    for (let i = 1; i <= 5; i++) await svc.clients.replace(auth, { id: asset.id, filename: `v${i}.txt` }, file(i));
    const { versions } = await svc.clients.asset('listAssetVersions', auth, { id: asset.id });
    t.deepEqual(
      versions.map((version) => [version.sha256, version.name, version.size]),
      [4, 3, 2, 1, 0].map((i) => [sha256(file(i)), `v${i}.txt`, file(i).length]),
      'five versions, newest first',
    );
    for (const version of versions) {
      const read = await readVersion(auth, asset.id, version.id);
      t.is(sha256(read.bytes), version.sha256, `the bytes of ${version.name}`);
      t.is(read.version.id, version.id);
    }
    const second = versions.find((version) => version.name === 'v1.txt')!;
    const restored = await svc.clients.asset('restoreAssetVersion', auth, { id: asset.id, versionId: second.id });
    t.deepEqual([restored.id, restored.sha256, restored.name], [asset.id, sha256(file(1)), 'v1.txt']);
    t.is(sha256((await svc.clients.readFile({ path: filePath(restored) })).bytes), sha256(file(1)), 'its bytes are served as current');
    const after = await svc.clients.asset('listAssetVersions', auth, { id: asset.id });
    t.deepEqual(
      after.versions.map((version) => version.name),
      ['v5.txt', 'v4.txt', 'v3.txt', 'v2.txt', 'v0.txt'],
    );
    const [change] = (await svc.clients.asset('listAssetChanges', auth, { id: asset.id, pageSize: 1, pageToken: '' })).changes;
    t.deepEqual([change?.type, change?.reason, change?.versionIds], ['asset.replaced', 'restore', [second.id]]);
    await rejects(t, svc.clients.asset('restoreAssetVersion', auth, { id: asset.id, versionId: second.id }), Status.NOT_FOUND);
    await rejects(t, svc.clients.asset('restoreAssetVersion', auth, { id: asset.id, versionId: 'nope' }), Status.INVALID_ARGUMENT);
    await rejects(t, readVersion(await svc.auth(ws('five-other')), asset.id, second.id), Status.NOT_FOUND);
  });

  test(title('keepVersions 2 leaves the two newest; the blobs of the others are gone'), async (t) => {
    const workspace = ws('keep-two');
    const auth = await svc.auth(workspace);
    const policy = await svc.clients.asset('setWorkspacePolicy', auth, {
      allowedTypes: [],
      defaultVisibility: '',
      stripImageMetadata: false,
      keepVersions: 2,
    });
    t.deepEqual([policy.keepVersions, policy.retentionDays], [2, 7]);
    const asset = await svc.clients.upload(auth, {}, file(0));
    for (let i = 1; i <= 4; i++) await svc.clients.replace(auth, { id: asset.id }, file(i));
    const { versions } = await svc.clients.asset('listAssetVersions', auth, { id: asset.id });
    t.deepEqual(
      versions.map((version) => version.sha256),
      [sha256(file(3)), sha256(file(2))],
    );
    const keys = await withStores(async ({ blobKeys }) => (await blobKeys()).filter((key) => key.startsWith(`${workspace}/`)));
    t.is(keys.length, 3, 'the current file and two versions');
  });

  test(
    title('a delete is 404 at once, in the trash, restored with id, name and versions; the old signed link stays refused'),
    async (t) => {
      const auth = await svc.auth(ws('trash'));
      // Private: only signed links open it, so a link that stays dead shows.
      const asset = await svc.clients.upload(auth, { filename: 'keep.txt', label: 'lab', visibility: 'private' }, file(0));
      const current = await svc.clients.replace(auth, { id: asset.id }, file(1));
      const signed = await svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 3600 });
      const query = new URL(signed.url).search.slice(1);
      t.is(sha256((await svc.clients.readFile({ path: filePath(current), query })).bytes), sha256(file(1)));

      t.deepEqual(await svc.clients.asset('deleteAsset', auth, { id: asset.id, purge: false }), {});
      await rejects(t, svc.clients.getAsset(auth, asset.id), Status.NOT_FOUND);
      await rejects(t, svc.clients.readFile({ path: filePath(current), query }), Status.NOT_FOUND);
      await rejects(t, svc.clients.asset('listAssetVersions', auth, { id: asset.id }), Status.NOT_FOUND);
      const trash = await svc.clients.asset('listTrash', auth, { pageSize: 0, pageToken: '' });
      t.deepEqual(
        trash.assets.map((entry) => [entry.asset?.id, entry.asset?.name, entry.deletedBy !== '']),
        [[asset.id, 'keep.txt', true]],
      );
      const entry = trash.assets[0]!;
      t.is(entry.purgeAt!.getTime() - entry.deletedAt!.getTime(), 7 * DAY, 'purged 7 days (the default) after its delete');
      const usage = await svc.clients.asset('getWorkspaceUsage', auth, {});
      t.deepEqual(usage, { assets: 0, bytes: 0, versionBytes: 0, trashBytes: file(0).length + file(1).length, routes: 0 });

      const back = await svc.clients.asset('restoreAsset', auth, { id: asset.id });
      t.deepEqual(
        [back.id, back.name, back.label, back.visibility, back.sha256, back.url],
        [asset.id, 'keep.txt', 'lab', 'private', sha256(file(1)), current.url],
      );
      t.deepEqual(
        (await svc.clients.asset('listAssetVersions', auth, { id: asset.id })).versions.map((version) => version.sha256),
        [sha256(file(0))],
        'with its versions',
      );
      await rejects(t, svc.clients.readFile({ path: filePath(current), query }), Status.PERMISSION_DENIED);
      const fresh = await svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 3600 });
      const freshQuery = new URL(fresh.url).search.slice(1);
      t.is(sha256((await svc.clients.readFile({ path: filePath(current), query: freshQuery })).bytes), sha256(file(1)), 'a new link works');
      await rejects(t, svc.clients.asset('restoreAsset', auth, { id: asset.id }), Status.NOT_FOUND);
    },
  );

  test(
    title('retention by an injected clock: gc purges versions and trash past retentionDays with their blobs, nothing younger'),
    async (t) => {
      const workspace = ws('retention');
      const auth = await svc.auth(workspace);
      await svc.clients.asset('setWorkspacePolicy', auth, {
        allowedTypes: [],
        defaultVisibility: '',
        stripImageMetadata: false,
        retentionDays: 1,
      });
      const kept = await svc.clients.upload(auth, {}, file(0));
      await svc.clients.replace(auth, { id: kept.id }, file(1));
      const trashed = await svc.clients.upload(auth, {}, file(2));
      await svc.clients.asset('deleteAsset', auth, { id: trashed.id, purge: false });
      const now = Date.now();
      const gc = (at: number) =>
        withStores(({ assetStore, blobStore }) =>
          collectGarbage({ assetStore, blobStore, clock: createManualClock(at), graceMs: NO_ORPHAN_SCAN }),
        );
      const early = await gc(now + DAY - 60_000);
      t.deepEqual([early.expiredVersions, early.expiredTrash], [[], []], 'nothing a day old yet');
      t.is((await svc.clients.asset('listAssetVersions', auth, { id: kept.id })).versions.length, 1);

      const late = await gc(now + DAY + 60_000);
      t.is(late.expiredVersions.length, 1);
      t.deepEqual(late.expiredTrash, [trashed.id]);
      t.deepEqual((await svc.clients.asset('listAssetVersions', auth, { id: kept.id })).versions, []);
      t.deepEqual((await svc.clients.asset('listTrash', auth, { pageSize: 0, pageToken: '' })).assets, []);
      const keys = await withStores(async ({ blobKeys }) => (await blobKeys()).filter((key) => key.startsWith(`${workspace}/`)));
      const blobId = kept.url.split('/').pop()!.split('.')[0]!;
      t.is(keys.length, 1, 'one blob left in the workspace');
      t.false(keys[0]!.includes(blobId), 'not the first file (its version was purged) but the current one');
      t.true(keys[0]!.includes(kept.id));
      const [purge] = (await svc.clients.asset('listAssetChanges', auth, { id: kept.id, pageSize: 1, pageToken: '' })).changes;
      t.deepEqual([purge?.type, purge?.reason, purge?.actor], ['asset.updated', 'purge', 'switchyard-gc']);
    },
  );

  test(title('a trash purge and purge=true leave no blob, no row and no name in the log'), async (t) => {
    const workspace = ws('purge');
    const auth = await svc.auth(workspace);
    const one = await svc.clients.upload(auth, { filename: 'secret-one.txt' }, file(0));
    await svc.clients.replace(auth, { id: one.id, filename: 'secret-one-b.txt' }, file(1));
    const two = await svc.clients.upload(auth, { filename: 'secret-two.txt' }, file(2));
    await svc.clients.replace(auth, { id: two.id }, file(3));
    await svc.clients.asset('deleteAsset', auth, { id: one.id, purge: false });
    t.deepEqual(await svc.clients.asset('purgeAsset', auth, { id: one.id }), {});
    await rejects(t, svc.clients.asset('purgeAsset', auth, { id: one.id }), Status.NOT_FOUND);
    await rejects(
      t,
      svc.clients.asset('deleteAsset', await svc.auth(workspace, { scope: 'assets:read assets:write' }), { id: two.id, purge: true }),
      Status.PERMISSION_DENIED,
    );
    t.deepEqual(await svc.clients.asset('deleteAsset', auth, { id: two.id, purge: true }), {});
    t.deepEqual((await svc.clients.asset('listTrash', auth, { pageSize: 0, pageToken: '' })).assets, []);
    await withStores(async ({ assetStore, blobKeys }) => {
      t.deepEqual(
        (await blobKeys()).filter((key) => key.startsWith(`${workspace}/`)),
        [],
        'no blob of either',
      );
      t.deepEqual(await assetStore.listTrash(workspace, { limit: 10 }), [], 'no trash row');
      for (const id of [one.id, two.id]) {
        t.deepEqual(await assetStore.listVersions(workspace, id), [], 'no version row');
        const changes = await assetStore.history(workspace, id, { limit: 100 });
        t.false(JSON.stringify(changes).includes('secret'), `no change of ${id} names its file`);
        t.deepEqual([changes[0]?.type, changes[0]?.reason], ['asset.deleted', 'purge'], 'the purge is the last change');
      }
    });
  });
}
