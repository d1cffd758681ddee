// Resumable uploads on MySQL + S3 (s3rver), across two service instances and two gateways sharing the database and the bucket.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { collectGarbage } from '@switchyard/core';
import { openStorage } from '@switchyard/service';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { mysqlS3Target, type StorageTarget } from '../grpc/support/storage-targets.js';
import { startTestService, tempDir, type TestService } from '../grpc/support/test-service.js';
import { sha256 } from './support/fixtures.js';
import { json } from './support/http.js';
import { mintToken } from './support/tokens.js';
import { freshWorkspace } from './support/stack.js';
import { startCuttingProxy, switchingHttpStack, tusUpload } from './support/tus.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';

const MiB = 1024 * 1024;

interface Instance {
  readonly service: TestService;
  readonly gateway: GatewayHandle;
}

const mysqlTest = await testNeedingMysql();

let target: StorageTarget | undefined;
let instances: Instance[] = [];
const secret = randomBytes(32).toString('base64url');

test.before(async () => {
  target = stillReachable(await mysqlS3Target());
  const dir = await tempDir('tus-mysql');
  const env = { MAX_UPLOAD_BYTES: String(300 * MiB), URL_SIGNING_KEYS: `k1:${randomBytes(32).toString('base64url')}` };
  for (let i = 0; i < 2; i++) {
    const service = await startTestService({ storage: target.storage, dataDir: dir.path, env, secret });
    const listener = await listen('127.0.0.1', 0);
    const gateway = await startGateway(
      {
        ...loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port), MAX_UPLOAD_BYTES: env.MAX_UPLOAD_BYTES }),
        cdnUrl: service.config.cdnUrl,
      },
      { serviceUrl: `http://${service.handle.address}`, listener, log: createGatewayLogger('error'), shutdownTimeoutMs: 2_000 },
    );
    instances.push({ service, gateway });
  }
});

test.after.always(async () => {
  for (const { gateway, service } of instances) {
    await gateway.close();
    await service.stop();
  }
  instances = [];
  await target?.cleanup();
});

const auth = async (workspace: string) => ({ authorization: `Bearer ${await mintToken(secret, { workspace })}` });

mysqlTest.serial(
  'a 200 MiB upload created on one instance continues on the other, cut three times; its parts leave the bucket',
  async (t) => {
    if (!target) return t.fail('the before hook set up no MySQL + S3 target');
    const [a, b] = instances as [Instance, Instance];
    const workspace = freshWorkspace();
    const file = randomBytes(200 * MiB);
    const proxy = await startCuttingProxy(b.gateway.url, [25 * MiB, 80 * MiB, 140 * MiB]);
    try {
      const result = await tusUpload(file, {
        endpoint: `${a.gateway.url}/v1/uploads`,
        headers: await auth(workspace),
        httpStack: switchingHttpStack(a.gateway.url, proxy.url),
      });
      t.is(proxy.cuts(), 3);
      t.true(proxy.sent() < file.length * 1.25, `${proxy.sent()} bytes sent for a file of ${file.length}`);
      const asset = await json(await fetch(`${a.gateway.url}/v1/assets/${result.assetId}`, { headers: await auth(workspace) }));
      t.is(asset['sha256'], sha256(file));
      t.is(asset['size'], file.length);
      const snapshot = await target.snapshot();
      t.false(
        snapshot.blobKeys.some((key) => key.startsWith('_uploads/')),
        'no part is left in the bucket',
      );
    } finally {
      await proxy.close();
    }
  },
);

mysqlTest.serial('parallelUploads: 4 partial uploads on S3 concatenate into one asset', async (t) => {
  if (!target) return t.fail('the before hook set up no MySQL + S3 target');
  const [a] = instances as [Instance];
  const workspace = freshWorkspace();
  const file = randomBytes(20 * MiB + 777);
  const result = await tusUpload(file, { endpoint: `${a.gateway.url}/v1/uploads`, headers: await auth(workspace), parallelUploads: 4 });
  const asset = await json(await fetch(`${a.gateway.url}/v1/assets/${result.assetId}`, { headers: await auth(workspace) }));
  t.is(asset['sha256'], sha256(file));
});

mysqlTest.serial('termination on one instance removes the parts the other stored', async (t) => {
  if (!target) return t.fail('the before hook set up no MySQL + S3 target');
  const [a, b] = instances as [Instance, Instance];
  const workspace = freshWorkspace();
  const headers = { 'tus-resumable': '1.0.0', ...(await auth(workspace)) };
  const created = await fetch(`${a.gateway.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...headers, 'upload-length': String(10 * MiB) },
  });
  const path = new URL(created.headers.get('location')!).pathname;
  const appended = await fetch(`${b.gateway.url}${path}`, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
    body: new Uint8Array(randomBytes(3 * MiB)),
  });
  t.is(appended.status, 204);
  t.true(
    (await target.snapshot()).blobKeys.some((key) => key.includes(path.split('/').pop()!)),
    'the part is in the bucket',
  );
  t.is((await fetch(`${a.gateway.url}${path}`, { method: 'DELETE', headers })).status, 204);
  t.false(
    (await target.snapshot()).blobKeys.some((key) => key.includes(path.split('/').pop()!)),
    'and gone after termination',
  );
  t.is((await fetch(`${b.gateway.url}${path}`, { method: 'HEAD', headers })).status, 404);
});

mysqlTest.serial('gc removes an expired upload with its parts in the bucket, and keeps a live one', async (t) => {
  if (!target) return t.fail('the before hook set up no MySQL + S3 target');
  const [a] = instances as [Instance];
  const workspace = freshWorkspace();
  const headers = { 'tus-resumable': '1.0.0', ...(await auth(workspace)) };
  const start = async (): Promise<string> => {
    const created = await fetch(`${a.gateway.url}/v1/uploads`, {
      method: 'POST',
      headers: { ...headers, 'upload-length': String(4 * MiB) },
    });
    const location = created.headers.get('location')!;
    const appended = await fetch(location, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: new Uint8Array(randomBytes(MiB)),
    });
    t.is(appended.status, 204);
    return location.split('/').pop()!;
  };
  const expiring = await start();
  const storage = await openStorage(target.storage, { migrate: false });
  try {
    // Two days on, the first upload has expired; one started "then" has not.
    const later = { now: () => new Date(Date.now() + 2 * 86_400_000) };
    const live = await start();
    await storage.db
      .updateTable('resumable_uploads')
      .set({ expires_at: Date.now() + 3 * 86_400_000 })
      .where('id', '=', live)
      .execute();
    const report = await collectGarbage({
      blobStore: storage.blobStore,
      assetStore: storage.assetStore,
      uploadStore: storage.uploadStore,
      clock: later,
      graceMs: 0,
    });
    t.true(report.expiredUploads.includes(expiring));
    t.false(report.expiredUploads.includes(live));
    const keys = (await target.snapshot()).blobKeys;
    t.false(
      keys.some((key) => key.includes(expiring)),
      'the expired upload has no part left',
    );
    t.true(
      keys.some((key) => key.includes(live)),
      'the live upload keeps its part',
    );
  } finally {
    await storage.close();
  }
});
