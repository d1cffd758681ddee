// The container image (ops/container/Containerfile) as teams run it, built from this checkout by
// ops/container/build.sh on a base made from Debian's packages (no registry needed): the
// all-in-one server with a volume, read-only and as another uid, and the split deployment of
// docs/scaling-out.md as containers. The commands are those of docs/operations.md, "Container
// image". Traffic goes to 127.0.0.1 only: published ports on loopback, or host networking.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { eventually } from '../support/eventually.js';
import { testWhen } from '../support/conditional-test.js';
import { freePort } from '../support/free-port.js';
import { createTestMysqlDatabase, stillReachable, testNeedingMysql } from '../support/mysql.js';
import { startRedis } from '../support/brokers.js';
import { startS3rver } from '../support/s3rver.js';
import { fixture, noise, sha256 } from '../rest/support/fixtures.js';
import { fixtureFile, form, json } from '../rest/support/http.js';
import {
  buildTestImage,
  createVolume,
  podman,
  podmanMissing,
  podmanStatus,
  runContainer,
  type Container,
  type TestImage,
} from './support/podman.js';

const missing = podmanMissing();
const containerTest = testWhen(missing === undefined, missing ?? '', 'REQUIRE_PODMAN');
/** The split deployment needs MariaDB as well: without it, that test is a skip, never a pass. */
const splitTest = missing === undefined ? await testNeedingMysql() : containerTest;

/** The image's budget: the Debian base (Node.js and its libraries) is most of it. */
const SIZE_BUDGET_BYTES = 400 * 1024 * 1024;
const MiB = 1024 * 1024;

let image: TestImage | undefined;
let buildSeconds = 0;
test.before(async (t) => {
  if (missing !== undefined) return;
  t.timeout(20 * 60_000);
  const started = performance.now();
  image = await buildTestImage();
  buildSeconds = (performance.now() - started) / 1000;
});
test.after.always(async () => image?.remove());

function built(): TestImage {
  if (image === undefined) throw new Error('the before hook built no image');
  return image;
}

/** For `.catch`: the failure, with what the container printed. */
function withLogs(container: Container): (error: unknown) => Promise<never> {
  return async (error) => {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- podman logs ${container.name}\n${await container.logs()}`,
    );
  };
}

/** An error with its causes (undici's `terminated` says why only in its cause). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const own = `${error.message}${typeof code === 'string' ? ` (${code})` : ''}`;
  return error.cause === undefined ? own : `${own}, caused by ${describeError(error.cause)}`;
}

async function healthy(url: string): Promise<boolean> {
  return (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200;
}

/** True once the server drains: new connections refused, or answered with `connection: close`. */
async function drainingSeen(url: string): Promise<boolean> {
  const response = await fetch(`${url}/healthz`).catch(() => undefined);
  if (response === undefined) return true;
  await response.arrayBuffer().catch(() => undefined);
  return response.headers.get('connection') === 'close';
}

async function upload(baseUrl: string, token: string, bytes: Uint8Array<ArrayBuffer>, filename: string) {
  const response = await fetch(`${baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form([['file', { bytes, filename }]]),
  });
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return json<{ id: string; url: string; size: number }>(response);
}

containerTest(
  'podman image inspect shows the health check, the volume, the ports, a non-root user; the size is within its budget',
  async (t) => {
    const { tag, size, base } = built();
    // As `podman image inspect` prints it (its template names the health check otherwise).
    const [inspected] = JSON.parse(await podman(['image', 'inspect', tag])) as [
      {
        Config: {
          Volumes?: Record<string, unknown>;
          ExposedPorts?: Record<string, unknown>;
          User?: string;
          Entrypoint?: string[];
          Cmd?: string[];
        };
        Healthcheck?: { Test?: string[] };
      },
    ];
    const { Config: config, Healthcheck: healthcheck } = inspected;
    t.deepEqual(healthcheck?.Test, ['CMD', 'node', '/app/healthcheck.mjs']);
    t.deepEqual(Object.keys(config.Volumes ?? {}), ['/data']);
    t.deepEqual(Object.keys(config.ExposedPorts ?? {}).sort(), ['50051/tcp', '8080/tcp', '9464/tcp']);
    t.is(config.User, '10001:10001');
    t.deepEqual([...(config.Entrypoint ?? []), ...(config.Cmd ?? [])], ['node', '/app/cli/dist/bin.js', 'start']);
    const baseSize = Number(await podman(['image', 'inspect', '--format', '{{.Size}}', base]));
    t.log(`built in ${buildSeconds.toFixed(0)} s (the base included, when it was not there yet)`);
    t.log(
      `image ${(size / MiB).toFixed(0)} MiB: base ${(baseSize / MiB).toFixed(0)} MiB (${base}), Switchyard ${((size - baseSize) / MiB).toFixed(0)} MiB`,
    );
    t.true(size <= SIZE_BUDGET_BYTES, `${size} bytes, budget ${SIZE_BUDGET_BYTES}`);
  },
);

containerTest(
  'all-in-one on a volume: a token from podman exec, an upload read back, a route matched; stop finishes a download in flight and exits 0; the asset outlives the container',
  async (t) => {
    t.timeout(10 * 60_000);
    const { tag } = built();
    const volume = await createVolume(t);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const runArgs = ['--publish', `127.0.0.1:${port}:8080`, '--volume', `${volume}:/data`, '--env', `CDN_URL=${url}/files`, tag];
    const first = await runContainer(t, runArgs);
    await eventually(() => healthy(url), { timeout: 90_000, message: 'GET /healthz answering 200' }).catch(withLogs(first));
    t.is(await podman(['exec', first.name, 'id', '-u']), '10001');

    const token = await podman(['exec', first.name, 'switchyard', 'token', '--workspace', 'container']);
    t.regex(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const auth = { authorization: `Bearer ${token}` };
    const png = await fixture('image.png');
    const asset = await upload(url, token, (await fixtureFile('image.png')).bytes, 'image.png');
    t.true(asset.url.startsWith(`${url}/files/`), asset.url);
    const served = await fetch(asset.url);
    t.is(served.status, 200);
    t.is(sha256(new Uint8Array(await served.arrayBuffer())), png.sha256);

    const created = await fetch(`${url}/v1/routing`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/users/:id', handler: 'getUser' }),
    });
    t.is(created.status, 201);
    const route = await json<{ id: string }>(created);
    const matched = await fetch(`${url}/v1/routing:match?method=GET&path=${encodeURIComponent('/users/42')}`, { headers: auth });
    t.is(matched.status, 200);
    t.like(await json(matched), { route: { id: route.id } });

    // A download in flight when the container is told to stop: its first bytes are read, then
    // `podman stop` (SIGTERM, 60 s grace), then the rest, whole. Exit code 0, not 137, says the
    // server ended on its own within the grace, not by SIGKILL.
    const big = new Uint8Array(noise(32 * MiB, 11));
    const large = await upload(url, token, big, 'large.bin');
    const download = await fetch(large.url);
    t.is(download.status, 200);
    const reader = download.body!.getReader();
    const chunks: Uint8Array[] = [];
    const firstChunk = await reader.read();
    t.false(firstChunk.done);
    chunks.push(firstChunk.value!);
    // The server's own shutdown deadline (10 s) runs from SIGTERM: the rest is read as soon as the
    // server shows it is stopping. Its log says so, but a followed `podman logs` can lag seconds
    // behind under load; a /healthz probe sees it at once (refused, or answered `connection: close`).
    const output = first.follow();
    await output.until(/listening/);
    let stopping = false;
    void output.until(/shutting down/).then(() => (stopping = true));
    const stopped = podman(['stop', '--time', '60', first.name], { timeout: 120_000 });
    await eventually(async () => stopping || (await drainingSeen(url)), {
      timeout: 30_000,
      interval: 10,
      message: 'the server stopping on SIGTERM',
    });
    const readRest = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        chunks.push(value);
      }
    };
    await readRest().catch((error: unknown) =>
      withLogs(first)(new Error(`the download broke after ${Buffer.concat(chunks).length} bytes: ${describeError(error)}`)),
    );
    const received = Buffer.concat(chunks);
    t.is(received.length, big.length);
    t.is(sha256(received), sha256(big));
    await stopped;
    t.is(await first.inspect('{{.State.ExitCode}}'), '0', await first.logs());

    // A new container on the same volume: the records, the files and the generated secret are there.
    const second = await runContainer(t, runArgs);
    await eventually(() => healthy(url), { timeout: 90_000, message: 'GET /healthz answering 200' }).catch(withLogs(second));
    const again = await fetch(`${url}/v1/assets/${asset.id}`, { headers: auth });
    t.is(again.status, 200, "the first container's token is still accepted, and the asset is there");
    t.is(sha256(new Uint8Array(await (await fetch(asset.url)).arrayBuffer())), png.sha256);
    t.is((await fetch(`${url}/v1/routing/${route.id}`, { headers: auth })).status, 200);
  },
);

containerTest(
  '--read-only as an arbitrary uid: it serves and stores, writes nowhere but /data and /tmp, and /healthz makes it healthy',
  async (t) => {
    t.timeout(5 * 60_000);
    const { tag } = built();
    const volume = await createVolume(t);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const container = await runContainer(t, [
      '--read-only',
      '--user',
      '4242',
      '--publish',
      `127.0.0.1:${port}:8080`,
      '--volume',
      `${volume}:/data`,
      '--env',
      `CDN_URL=${url}/files`,
      tag,
    ]);
    await eventually(() => healthy(url), { timeout: 90_000, message: 'GET /healthz answering 200' }).catch(withLogs(container));
    t.is(await podman(['exec', container.name, 'id', '-u']), '4242');
    t.is(await podman(['exec', container.name, 'id', '-g']), '0', 'an arbitrary uid runs in group 0, which may write /data');
    t.not(await podmanStatus(['exec', container.name, 'touch', '/app/written']), 0, 'the root filesystem is read-only');

    const token = await podman(['exec', container.name, 'switchyard', 'token', '--workspace', 'read-only']);
    const bytes = new Uint8Array(noise(4096, 3));
    const asset = await upload(url, token, bytes, 'notes.bin');
    t.is(sha256(new Uint8Array(await (await fetch(asset.url)).arrayBuffer())), sha256(bytes));

    t.is(await podmanStatus(['healthcheck', 'run', container.name]), 0, await container.logs());
    t.is(await container.inspect('{{.State.Health.Status}}'), 'healthy');
  },
);

containerTest('a one-off command runs in the image and exits: switchyard --version, token', async (t) => {
  const { tag } = built();
  const version = await podman(['run', '--rm', '--read-only', tag, '--version']);
  t.regex(version, /^\d+\.\d+\.\d+/);
  const token = await podman([
    'run',
    '--rm',
    '--read-only',
    '--env',
    `AUTH_SECRET=${randomBytes(32).toString('hex')}`,
    tag,
    'token',
    '--workspace',
    'w',
  ]);
  t.regex(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
});

splitTest(
  'the split deployment as containers: migrate, two services and a gateway from the one image on MariaDB, a bucket and Redis; an upload is served by either service',
  async (t) => {
    t.timeout(10 * 60_000);
    const { tag } = built();
    const database = stillReachable(await createTestMysqlDatabase(t));
    const s3 = await startS3rver();
    t.teardown(() => s3.close());
    const redis = await startRedis();
    t.teardown(() => redis.close());
    // One after another: ports picked at once may repeat. Metrics are off: three more ports
    // picked now and bound seconds later (a container starting) are three more to lose to a race.
    const grpc1 = await freePort();
    const grpc2 = await freePort();
    const gatewayPort = await freePort();
    const url = `http://127.0.0.1:${gatewayPort}`;
    // docs/scaling-out.md's example, each process a container on the host's network.
    const shared = Object.entries({
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      BLOB_STORE: 's3',
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      URL_SIGNING_KEYS: `k1:${randomBytes(32).toString('hex')}`,
      CDN_URL: `${url}/files`,
      EVENTS_URL: redis.url,
      RATE_LIMIT_STORE: 'redis',
    }).flatMap(([name, value]) => ['--env', `${name}=${value}`]);

    await podman(['run', '--rm', '--network', 'host', ...shared, tag, 'migrate'], { timeout: 180_000 });
    const service1 = await runContainer(t, [
      '--network',
      'host',
      ...shared,
      '--env',
      `GRPC_PORT=${grpc1}`,
      '--env',
      'METRICS_PORT=off',
      tag,
      'service',
    ]);
    const service2 = await runContainer(t, [
      '--network',
      'host',
      ...shared,
      '--env',
      `GRPC_PORT=${grpc2}`,
      '--env',
      'METRICS_PORT=off',
      tag,
      'service',
    ]);
    const gateway = await runContainer(t, [
      '--network',
      'host',
      '--env',
      'HOST=127.0.0.1',
      '--env',
      `SERVICE_URL=http://127.0.0.1:${grpc1},http://127.0.0.1:${grpc2}`,
      '--env',
      `CDN_URL=${url}/files`,
      '--env',
      `PORT=${gatewayPort}`,
      '--env',
      'METRICS_PORT=off',
      tag,
      'gateway',
    ]);
    const logs = async () => `${await service1.logs()}\n---\n${await service2.logs()}\n---\n${await gateway.logs()}`;
    await eventually(() => healthy(url), { timeout: 90_000, message: 'GET /healthz answering 200' }).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${await logs()}`);
    });
    for (const container of [service1, service2, gateway]) {
      await eventually(async () => (await podmanStatus(['healthcheck', 'run', container.name])) === 0, {
        timeout: 30_000,
        message: `${container.name}'s health check passing`,
      }).catch(withLogs(container));
    }

    const token = await podman(['exec', service1.name, 'switchyard', 'token', '--workspace', 'split']);
    const auth = { authorization: `Bearer ${token}` };
    const png = await fixture('image.png');
    const asset = await upload(url, token, (await fixtureFile('image.png')).bytes, 'image.png');
    const readBack = async (): Promise<void> => {
      t.is((await fetch(`${url}/v1/assets/${asset.id}`, { headers: auth })).status, 200);
      const served = await fetch(asset.url);
      t.is(served.status, 200);
      t.is(sha256(new Uint8Array(await served.arrayBuffer())), png.sha256);
    };
    // The gateway sends calls round robin over both services: reads of the record and of the
    // bytes reach each of them, and each answers from the shared database and bucket (their
    // logs show the calls), whichever stored the upload.
    for (let read = 0; read < 4; read++) await readBack();
    for (let read = 0; read < 3; read++) t.is((await fetch(asset.url)).status, 200);
    for (const service of [service1, service2]) {
      await eventually(async () => /"method":"ReadFile","code":"OK"/.test(await service.logs()), {
        timeout: 30_000,
        message: `${service.name} serving the file`,
      }).catch(withLogs(service));
    }
    // One service stopped (SIGTERM: it exits 0), the other answers alone.
    await podman(['stop', '--time', '30', service1.name], { timeout: 90_000 });
    t.is(await service1.inspect('{{.State.ExitCode}}'), '0', await service1.logs());
    await eventually(async () => (await fetch(`${url}/v1/assets/${asset.id}`, { headers: auth })).status === 200, {
      timeout: 60_000,
      message: 'the asset read through the gateway with one service left',
    }).catch(withLogs(gateway));
    for (let read = 0; read < 3; read++) await readBack();
  },
);
