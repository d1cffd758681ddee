import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isSwitchyardError } from '@switchyard/core';
import { bytesOf, sampleAsset, sampleRoute, uniqueName } from '@switchyard/core/testing';
import { createTestMysqlDatabase, stillReachable, testNeedingMysql } from '../../../test/support/mysql.js';
import { startS3rver } from '../../../test/support/s3rver.js';
import { openStorage } from './open-storage.js';

const mysqlTest = await testNeedingMysql();

const dirs: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-open-storage-'));
  dirs.push(dir);
  return dir;
}
test.after.always(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const isUnavailable = (error: unknown) => isSwitchyardError(error) && error.code === 'unavailable';

test('sqlite + disk: migrates by default, every store works, check passes, close is idempotent', async (t) => {
  const dir = await freshDir();
  const storage = await openStorage({
    database: { kind: 'sqlite', file: join(dir, 'db.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'files') },
  });
  const route = sampleRoute(uniqueName());
  await storage.routeStore.insert(route);
  t.is((await storage.routeStore.get(route.workspace, route.id))?.id, route.id);
  await storage.blobStore.put('ws/x.txt', Readable.from([Buffer.from('x')], { objectMode: false }));
  t.deepEqual(await bytesOf((await storage.blobStore.get('ws/x.txt'))!), Buffer.from('x'));
  await t.notThrowsAsync(storage.check());
  await storage.close();
  await t.notThrowsAsync(storage.close());
});

test('the asset store keeps the change log ASSET_HISTORY asks for', async (t) => {
  const dir = await freshDir();
  const storage = await openStorage({
    database: { kind: 'sqlite', file: join(dir, 'db.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'files') },
    assetHistory: 2,
  });
  try {
    const record = sampleAsset(uniqueName());
    const by = { actor: 'open-storage', time: new Date(0) };
    await storage.assetStore.insert(record, by);
    for (const label of ['a', 'b']) await storage.assetStore.update(record.workspace, record.id, { label }, by);
    t.deepEqual(
      (await storage.assetStore.changesSince(record.workspace, 1, 10))?.map((change) => change.revision),
      [2, 3],
    );
    t.is(await storage.assetStore.changesSince(record.workspace, 0, 10), undefined, 'revision 1 is past a history of 2');
  } finally {
    await storage.close();
  }
});

test('check is unavailable when the blob root or the database cannot be used', async (t) => {
  const dir = await freshDir();
  await writeFile(join(dir, 'file'), 'x');
  const badBlobs = await openStorage({
    database: { kind: 'sqlite', file: join(dir, 'db.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'file') },
  });
  t.true(isUnavailable(await t.throwsAsync(badBlobs.check())), 'blob root is a file');
  await badBlobs.close();

  const badDatabase = await openStorage(
    { database: { kind: 'mysql', url: 'mysql://root@127.0.0.1:1/switchyard' }, blobs: { kind: 'disk', root: join(dir, 'files') } },
    { migrate: false },
  );
  t.true(isUnavailable(await t.throwsAsync(badDatabase.check())), 'database refuses connections');
  await badDatabase.close();
});

test('opening with migrations against an unreachable database rejects with unavailable', async (t) => {
  const dir = await freshDir();
  const error = await t.throwsAsync(
    openStorage({ database: { kind: 'mysql', url: 'mysql://root@127.0.0.1:1/switchyard' }, blobs: { kind: 'disk', root: dir } }),
  );
  t.true(isUnavailable(error), String(error));
});

mysqlTest('mysql + s3: migrates, check passes, records and blobs work', async (t) => {
  const database = stillReachable(await createTestMysqlDatabase(t));
  const s3 = await startS3rver();
  t.teardown(() => s3.close());
  const storage = await openStorage({ database: { kind: 'mysql', url: database.url }, blobs: s3.config });
  try {
    await t.notThrowsAsync(storage.check());
    const route = sampleRoute(uniqueName());
    await storage.routeStore.insert(route);
    t.is(await storage.routeStore.count(route.workspace), 1);
    await storage.blobStore.put('ws/y.txt', Readable.from([Buffer.from('y')], { objectMode: false }));
    t.is((await storage.blobStore.stat('ws/y.txt'))?.size, 1);
  } finally {
    await storage.close();
  }
});
