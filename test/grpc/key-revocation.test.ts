// A revoked API key is refused by every service instance: through the events broker (Redis or NATS) as soon as its
// message arrives, whatever the instances cached. The instances run on frozen fake time, so their key caches never
// age out: only the broker's message can make the other instance see the revocation.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createClock } from '@sinonjs/fake-timers';
import { credentials, status as Status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { timeSourceOf } from '@switchyard/core/testing';
import { KeyServiceClient, type CreateKeyResponse } from '@switchyard/service/gen/switchyard/v1/keys.js';
import { RouteServiceClient } from '@switchyard/service/gen/switchyard/v1/routes.js';
import type { StorageConfig } from '@switchyard/service';
import { startNats, startRedis, type TestBroker } from '../support/brokers.js';
import { runCli } from '../support/cli.js';
import { eventually, quietPeriod } from '../support/eventually.js';
import { bearer } from './support/clients.js';
import { startTestService, tempDir, type TestService } from './support/test-service.js';

interface Instance {
  readonly service: TestService;
  readonly keys: KeyServiceClient;
  readonly routes: RouteServiceClient;
}

async function twoInstances(
  t: import('ava').ExecutionContext,
  env: Record<string, string>,
): Promise<[Instance, Instance, { readonly path: string }]> {
  const dir = await tempDir('key-revocation');
  const storage: StorageConfig = {
    database: { kind: 'sqlite', file: join(dir.path, 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(dir.path, 'files') },
  };
  const secret = randomBytes(32).toString('base64url');
  const start = async (): Promise<Instance> => {
    // Never ticked: nothing cached ever ages out.
    const time = timeSourceOf(createClock(Date.now()));
    const service = await startTestService({ storage, dataDir: dir.path, secret, env, serviceOptions: { time } });
    const address = service.handle.address;
    return {
      service,
      keys: new KeyServiceClient(address, credentials.createInsecure()),
      routes: new RouteServiceClient(address, credentials.createInsecure()),
    };
  };
  const a = await start();
  const b = await start();
  t.teardown(async () => {
    for (const instance of [a, b]) {
      instance.keys.close();
      instance.routes.close();
      await instance.service.stop();
    }
    await dir.remove();
  });
  return [a, b, dir];
}

const unary = <T>(start: (callback: (error: ServiceError | null, value?: T) => void) => unknown): Promise<T> =>
  new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));

/** The gRPC status of listing routes with `secret` on `instance`: OK or the refusal's code. */
const listWith = (instance: Instance, secret: string): Promise<Status> =>
  unary((callback) => instance.routes.listRoutes({ pageSize: 1, pageToken: '' }, bearer(secret), callback)).then(
    () => Status.OK,
    (error: ServiceError) => error.code,
  );

async function keyOn(instance: Instance, admin: Metadata): Promise<CreateKeyResponse> {
  return unary((callback) =>
    instance.keys.createKey({ name: 'bot', scopes: ['routes:read'], expiresAt: new Date(Date.now() + 86_400_000) }, admin, callback),
  );
}

for (const [name, startBroker] of [
  ['redis', startRedis],
  ['nats', startNats],
] as const) {
  test(`${name}: a key revoked through one instance is refused by the other, which had it cached`, async (t) => {
    const broker: TestBroker = await startBroker();
    t.teardown(() => broker.close());
    const [a, b] = await twoInstances(t, { EVENTS_URL: broker.url });
    const admin = await a.service.auth('acme');
    const key = await keyOn(a, admin);
    t.is(await listWith(b, key.secret), Status.OK, 'the other instance reads and caches the key');
    const revoke = () => unary((callback) => a.keys.revokeKey({ id: key.key!.id }, admin, callback));
    await revoke();
    t.is(await listWith(a, key.secret), Status.UNAUTHENTICATED, 'the revoking instance refuses it at once');
    // Each revoke publishes again: a message sent before the other instance's subscription was up is not waited for.
    await eventually(async () => (await revoke(), (await listWith(b, key.secret)) === Status.UNAUTHENTICATED), { timeout: 20_000 });
    t.pass();
  });
}

test("redis: `switchyard keys revoke` on the servers' environment tells the running instances through the broker, as the service does", async (t) => {
  const broker = await startRedis();
  t.teardown(() => broker.close());
  const [a, b, dir] = await twoInstances(t, { EVENTS_URL: broker.url });
  const admin = await a.service.auth('acme');
  const key = await keyOn(a, admin);
  t.is(await listWith(a, key.secret), Status.OK, 'both instances read and cache the key');
  t.is(await listWith(b, key.secret), Status.OK);
  const revoked = await runCli(['keys', 'revoke', '--workspace', 'acme', '--id', key.key!.id], {
    DATA_DIR: dir.path,
    DATABASE_URL: '',
    BLOB_STORE: '',
    EVENTS_URL: broker.url,
  });
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout, `revoked ${key.key!.id}\n`);
  t.is(revoked.stderr, '', 'the broker took the news');
  // Neither instance's clock moves: only the command's message can end what they cached.
  for (const instance of [a, b])
    await eventually(async () => (await listWith(instance, key.secret)) === Status.UNAUTHENTICATED, { timeout: 20_000 });
  t.pass();
});

test('without a broker, the other instance keeps its cached key until the cache ages (5 s on its clock)', async (t) => {
  const [a, b] = await twoInstances(t, {});
  const admin = await a.service.auth('acme');
  const key = await keyOn(a, admin);
  t.is(await listWith(b, key.secret), Status.OK);
  await unary((callback) => a.keys.revokeKey({ id: key.key!.id }, admin, callback));
  t.is(await listWith(a, key.secret), Status.UNAUTHENTICATED);
  await quietPeriod(500);
  t.is(await listWith(b, key.secret), Status.OK, 'its clock has not moved, so its cache still answers');
});
