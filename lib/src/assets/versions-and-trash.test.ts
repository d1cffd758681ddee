import test from 'ava';
import { createHash } from 'node:crypto';
import type { SwitchyardError } from '../errors.js';
import { collectGarbage } from '../maintenance/collect-garbage.js';
import { GC_ACTOR } from '../maintenance/expire-retained.js';
import { bytesOf } from '../testing/streams.js';
import { alice, bob, chunked, listBlobs, pathOf, principalWith, setup } from './test-support.js';

// Versions and trash through the asset service (issue 43), on memory stores and a manual clock.

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const DAY = 24 * 60 * 60 * 1000;
const file = (i: number) => Buffer.from(`file number ${i} `.repeat(i + 1));
const codeOf = async (promise: Promise<unknown>) =>
  (
    (await promise.then(
      () => undefined,
      (error: unknown) => error,
    )) as SwitchyardError
  )?.code;

test('five replaces keep five versions, each readable with its sha256; restoring the second makes it current under the same id', async (t) => {
  const { service, blobStore } = setup();
  const asset = await service.upload(alice, { body: chunked(file(0)), filename: 'v0.txt' });
  for (let i = 1; i <= 5; i++) await service.replace(alice, asset.id, { body: chunked(file(i)), filename: `v${i}.txt` });
  const versions = await service.listVersions(alice, asset.id);
  t.deepEqual(
    versions.map((version) => [version.sha256, version.name, version.actor]),
    [4, 3, 2, 1, 0].map((i) => [sha256(file(i)), `v${i}.txt`, 'alice']),
    'newest first, each with its name and uploader',
  );
  for (const version of versions) {
    const opened = await service.openVersion(alice, asset.id, version.id);
    t.is(sha256(await bytesOf(opened.body!)), version.sha256, `the bytes of ${version.name}`);
  }
  const second = versions.find((version) => version.name === 'v1.txt')!;
  const restored = await service.restoreVersion(alice, asset.id, second.id);
  t.deepEqual([restored.id, restored.sha256, restored.name], [asset.id, sha256(file(1)), 'v1.txt']);
  t.deepEqual(await bytesOf((await service.openFile(pathOf(restored.url))).body!), file(1), 'its bytes are current');
  const after = await service.listVersions(alice, asset.id);
  t.deepEqual(
    after.map((version) => version.name),
    ['v5.txt', 'v4.txt', 'v3.txt', 'v2.txt', 'v0.txt'],
    'the displaced file is a version; the restored one is not',
  );
  const [change] = (await service.history(alice, asset.id, { pageSize: 1 })).changes;
  t.deepEqual(
    [change?.type, change?.reason, change?.versionIds, change?.previous?.sha256],
    ['asset.replaced', 'restore', [second.id], sha256(file(5))],
  );
  t.is((await listBlobs(blobStore)).length, 6, 'the current file and five versions');
});

test('keepVersions 2 leaves the two newest; the blobs of the others are gone', async (t) => {
  const { service, blobStore } = setup();
  await service.setPolicy(alice, { keepVersions: 2 });
  const asset = await service.upload(alice, { body: chunked(file(0)) });
  for (let i = 1; i <= 4; i++) await service.replace(alice, asset.id, { body: chunked(file(i)) });
  t.deepEqual(
    (await service.listVersions(alice, asset.id)).map((version) => version.sha256),
    [sha256(file(3)), sha256(file(2))],
  );
  const stored = await Promise.all(
    (await listBlobs(blobStore)).map(async (blob) => sha256(await bytesOf((await blobStore.get(blob.key))!))),
  );
  t.deepEqual(stored.sort(), [file(4), file(3), file(2)].map(sha256).sort());
});

test('a delete goes to the trash: 404 at once, listed, restored with id, name, label, visibility and versions; old signed links stay dead', async (t) => {
  const { service, clock } = setup();
  const asset = await service.upload(alice, { body: chunked(file(0)), filename: 'a.txt', label: 'lab', visibility: 'private' });
  await service.replace(alice, asset.id, { body: chunked(file(1)) });
  const current = await service.get(alice, asset.id);
  const signed = await service.createSignedUrl(alice, asset.id, { expiresIn: 3600 });
  const query = new URL(signed.url).search.slice(1);
  await t.notThrowsAsync(service.openFile(pathOf(current.url), { query }));

  clock.advance(1000);
  await service.delete(alice, asset.id);
  t.is(await codeOf(service.get(alice, asset.id)), 'not_found');
  t.is(await codeOf(service.openFile(pathOf(current.url), { query })), 'not_found', 'the signed link is 404 at once');
  t.is(await codeOf(service.listVersions(alice, asset.id)), 'not_found');
  t.is(await codeOf(service.delete(alice, asset.id)), 'not_found', 'a second delete');
  const trash = await service.listTrash(alice, {});
  t.deepEqual(
    trash.assets.map((entry) => [entry.id, entry.name, entry.deletedBy, entry.deletedAt.toISOString(), entry.purgeAt.toISOString()]),
    [[asset.id, 'a.txt', 'alice', clock.now().toISOString(), new Date(clock.now().getTime() + 7 * DAY).toISOString()]],
  );
  t.deepEqual((await service.listTrash(bob, {})).assets, [], "another workspace's trash");
  t.deepEqual(await service.usage(alice), { assets: 0, bytes: 0, versionBytes: 0, trashBytes: file(0).length + file(1).length, routes: 0 });

  t.is(await codeOf(service.restoreFromTrash(bob, asset.id)), 'not_found');
  const back = await service.restoreFromTrash(alice, asset.id);
  t.deepEqual(
    [back.id, back.name, back.label, back.visibility, back.sha256, back.url],
    [asset.id, 'a.txt', 'lab', 'private', sha256(file(1)), current.url],
  );
  t.deepEqual(
    (await service.listVersions(alice, asset.id)).map((version) => version.sha256),
    [sha256(file(0))],
  );
  t.is(await codeOf(service.openFile(pathOf(current.url), { query })), 'permission_denied', 'the old signed link stays refused');
  const fresh = new URL((await service.createSignedUrl(alice, asset.id, { expiresIn: 60 })).url).search.slice(1);
  await t.notThrowsAsync(service.openFile(pathOf(current.url), { query: fresh }), 'a new one works');
  t.deepEqual((await service.listTrash(alice, {})).assets, []);
  const [restoredChange] = (await service.history(alice, asset.id, { pageSize: 1 })).changes;
  t.deepEqual([restoredChange?.type, restoredChange?.reason], ['asset.created', 'restore']);
  t.deepEqual(await service.usage(alice), {
    assets: 1,
    bytes: file(1).length,
    versionBytes: file(0).length,
    trashBytes: 0,
    routes: 0,
  });
});

test('a trash purge and purge=true leave no blob, row or name in the log; purge=true needs workspace:admin', async (t) => {
  const { service, blobStore, assetStore } = setup();
  const one = await service.upload(alice, { body: chunked(file(0)), filename: 'secret-one.txt' });
  await service.replace(alice, one.id, { body: chunked(file(1)), filename: 'secret-one-b.txt' });
  const two = await service.upload(alice, { body: chunked(file(2)), filename: 'secret-two.txt' });
  await service.replace(alice, two.id, { body: chunked(file(3)) });

  await service.delete(alice, one.id);
  await service.purgeFromTrash(alice, one.id);
  t.is(await codeOf(service.purgeFromTrash(alice, one.id)), 'not_found', 'purged already');
  t.is(await codeOf(service.delete(principalWith('assets:read', 'assets:write'), two.id, { purge: true })), 'permission_denied');
  await service.delete(alice, two.id, { purge: true });
  t.deepEqual(await listBlobs(blobStore), [], 'no blob of either');
  t.deepEqual((await service.listTrash(alice, {})).assets, [], 'purge=true skipped the trash');
  for (const asset of [one, two]) t.deepEqual(await assetStore.listTrash('ws-alice', { limit: 10 }), [], `no row of ${asset.id}`);
  const since = await service.changesSince(alice, 0, 100);
  const changes = since.reset ? { changes: [] } : since;
  t.false(JSON.stringify(changes).includes('secret'), 'no change names a purged file');
  t.deepEqual(changes.changes.filter((change) => change.reason === 'purge').length, 2, 'each purge is a change');
  t.deepEqual(await service.usage(alice), { assets: 0, bytes: 0, versionBytes: 0, trashBytes: 0, routes: 0 });
});

test('retentionDays 0: a delete keeps nothing, bytes gone at once', async (t) => {
  const { service, blobStore } = setup();
  await service.setPolicy(alice, { retentionDays: 0 });
  const asset = await service.upload(alice, { body: chunked(file(0)) });
  const [batch] = await service.batchDelete(alice, [asset.id]);
  t.is(batch?.code, 'ok');
  t.deepEqual((await service.listTrash(alice, {})).assets, []);
  t.deepEqual(await listBlobs(blobStore), []);
});

test('a batch delete moves each asset to the trash', async (t) => {
  const { service, blobStore } = setup();
  const assets = await Promise.all([0, 1, 2].map((i) => service.upload(alice, { body: chunked(file(i)) })));
  const results = await service.batchDelete(
    alice,
    assets.map((asset) => asset.id),
  );
  t.deepEqual(
    results.map((result) => result.code),
    ['ok', 'ok', 'ok'],
  );
  t.deepEqual((await service.listTrash(alice, {})).assets.map((entry) => entry.id).sort(), assets.map((asset) => asset.id).sort());
  t.is((await listBlobs(blobStore)).length, 3, 'the bytes stay while in the trash');
});

test('the trash pages by id; bad ids and tokens are invalid_argument, unknown versions not_found; scopes are checked', async (t) => {
  const { service } = setup();
  const assets = [];
  for (let i = 0; i < 3; i++) assets.push(await service.upload(alice, { body: chunked(file(i)) }));
  for (const asset of assets) await service.delete(alice, asset.id);
  const first = await service.listTrash(alice, { pageSize: 2 });
  t.is(first.assets.length, 2);
  const rest = await service.listTrash(alice, { pageSize: 2, pageToken: first.nextPageToken });
  t.deepEqual(
    [...first.assets, ...rest.assets].map((entry) => entry.id),
    assets.map((asset) => asset.id).reverse(),
  );
  t.is(rest.nextPageToken, '');
  t.is(await codeOf(service.listTrash(alice, { pageToken: 'garbage' })), 'invalid_argument');
  t.is(await codeOf(service.listTrash(bob, { pageToken: first.nextPageToken })), 'invalid_argument');
  const live = await service.upload(alice, { body: chunked(file(5)) });
  t.is(await codeOf(service.openVersion(alice, live.id, 'nope')), 'invalid_argument');
  t.is(await codeOf(service.restoreVersion(alice, live.id, 'ver_00000000000000000000000000')), 'not_found');
  t.is(await codeOf(service.listVersions(alice, 'as_00000000000000000000000000')), 'not_found');
  t.is(await codeOf(service.restoreFromTrash(alice, 'bad')), 'invalid_argument');
  t.is(await codeOf(service.listTrash(principalWith('routes:read'), {})), 'permission_denied');
  t.is(await codeOf(service.purgeFromTrash(principalWith('assets:read'), assets[0]!.id)), 'permission_denied');
  t.is(await codeOf(service.restoreVersion(principalWith('assets:read'), live.id, 'ver_00000000000000000000000000')), 'permission_denied');
});

test('gc purges versions and trash past retentionDays with their blobs, and nothing younger (injected clock)', async (t) => {
  const { service, blobStore, assetStore, clock } = setup();
  await service.setPolicy(alice, { retentionDays: 3 });
  const kept = await service.upload(alice, { body: chunked(file(0)) });
  await service.replace(alice, kept.id, { body: chunked(file(1)) }); // version made on day 0
  const trashedOld = await service.upload(alice, { body: chunked(file(2)) });
  await service.delete(alice, trashedOld.id); // trashed on day 0
  clock.advance(2 * DAY);
  await service.replace(alice, kept.id, { body: chunked(file(3)) }); // version made on day 2
  const trashedYoung = await service.upload(alice, { body: chunked(file(4)) });
  await service.delete(alice, trashedYoung.id); // trashed on day 2
  const gc = () => collectGarbage({ blobStore, assetStore, clock, graceMs: 0 });

  clock.advance(DAY - 1); // 3 days less 1 ms after day 0
  const early = await gc();
  t.deepEqual([early.expiredVersions, early.expiredTrash, early.deleted], [[], [], []], 'nothing is old enough yet');
  clock.advance(2); // just past 3 days after day 0
  const report = await gc();
  const [young, old] = await service.listVersions(alice, kept.id);
  t.is(old, undefined, 'the day-0 version is gone');
  t.is(young?.sha256, sha256(file(1)), 'the day-2 version (of file 1) stays');
  t.is(report.expiredVersions.length, 1);
  t.deepEqual(report.expiredTrash, [trashedOld.id]);
  t.deepEqual(
    (await service.listTrash(alice, {})).assets.map((entry) => entry.id),
    [trashedYoung.id],
    'the younger trash stays',
  );
  const left = await Promise.all((await listBlobs(blobStore)).map(async (blob) => sha256(await bytesOf((await blobStore.get(blob.key))!))));
  t.deepEqual(left.sort(), [file(1), file(3), file(4)].map(sha256).sort(), 'their blobs went with them');
  const purges = (await service.history(alice, kept.id, { pageSize: 1 })).changes[0];
  t.deepEqual([purges?.type, purges?.reason, purges?.actor], ['asset.updated', 'purge', GC_ACTOR]);

  await service.setPolicy(alice, { retentionDays: 3, keepVersions: 0 });
  const trimmed = await gc();
  t.is(trimmed.expiredVersions.length, 1, 'a lowered keepVersions trims on the next run');
  t.deepEqual(await service.listVersions(alice, kept.id), []);
});
