// Dependency faults: the network between the service and MySQL, and between the service and S3
// (s3rver), runs through TCP proxies the test cuts, stalls and restores under load. Calls must fail
// fast with `unavailable` (503 on REST), readiness must turn 503 / NOT_SERVING, everything must
// recover without a restart, and no acknowledged write may be lost or half-written.
import test, { type ExecutionContext } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { status as Status } from '@grpc/grpc-js';
import { loadGatewayConfig, listen, createGatewayLogger, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { startService, loadServiceConfig, type ServiceHandle } from '@switchyard/service';
import { createLogger } from '@switchyard/runtime';
import { bearer, GrpcClients } from '../grpc/support/clients.js';
import { mintToken } from '../rest/support/tokens.js';
import { audit, mysqlS3Deployment, runGc } from './support/deployments.js';
import { scaled } from './support/soak.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { eventually } from '../support/eventually.js';

/** Each store call gives up after this; a failing call is answered within a few of them (S3 retries). */
const STORAGE_TIMEOUT_MS = 1_000;
/** The longest any call may take while a dependency is down: fail fast, never hang. */
const FAIL_FAST_BOUND_MS = 8 * STORAGE_TIMEOUT_MS;
/** Readiness follows within a health interval plus a check timeout. */
const HEALTH_INTERVAL_MS = 250;
const CYCLES = scaled(1, 10);
const LOAD_WORKERS = scaled(2, 8);

/**
 * What the test knows of an asset: the sha256 it may hold. After an
 * acknowledged write that is exactly one; a replace that failed adds its
 * content as a possibility only if the failure came after the commit (the
 * answer was lost), which the final audit reports.
 */
interface Known {
  readonly owner: number;
  acknowledged: string;
  readonly failedReplaces: Set<string>;
}

interface World {
  readonly url: string;
  readonly db: TcpProxy;
  readonly s3: TcpProxy;
  readonly grpc: GrpcClients;
  readonly auth: { authorization: string };
  readonly token: string;
  readonly assets: Map<string, Known>;
  /** Ids of routes whose create was acknowledged. */
  readonly routes: Set<string>;
  /** Audits the stored records and blobs directly (not through the proxies), and runs `npm run gc`. */
  audit(): ReturnType<typeof audit>;
  gc(): ReturnType<typeof runGc>;
  close(): Promise<void>;
}

async function startWorld(): Promise<World | undefined> {
  const deployment = await mysqlS3Deployment();
  if (!deployment) return undefined;
  const mysqlUrl = new URL(deployment.env['DATABASE_URL']!);
  const dbProxy = await TcpProxy.start({ host: mysqlUrl.hostname, port: Number(mysqlUrl.port || 3306) });
  const s3Proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(deployment.env['S3_ENDPOINT']!).port) });
  mysqlUrl.host = dbProxy.address;

  // The SDK takes S3 credentials from the environment; s3rver's are fixed.
  process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';
  const secret = deployment.secret;
  const listener = await listen('127.0.0.1', 0);
  const env = {
    ...deployment.env,
    PORT: String(listener.port),
    CDN_URL: `http://127.0.0.1:${listener.port}/files`,
    DATABASE_URL: mysqlUrl.href,
    S3_ENDPOINT: `http://${s3Proxy.address}`,
    STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
  };
  const quiet = { write: () => undefined };
  const service: ServiceHandle = await startService(loadServiceConfig(env), {
    logger: createLogger('warn', quiet),
    healthIntervalMs: HEALTH_INTERVAL_MS,
  });
  const gatewayConfig = loadGatewayConfig(env);
  const gateway: GatewayHandle = await startGateway(
    { ...gatewayConfig, cdnUrl: loadServiceConfig(env).cdnUrl },
    { serviceUrl: `http://${service.address}`, log: createGatewayLogger('warn', quiet), listener, shutdownTimeoutMs: 2_000 },
  );
  const token = await mintToken(secret, { workspace: 'faults' });
  const grpc = new GrpcClients(service.address);
  return {
    url: gateway.url,
    db: dbProxy,
    s3: s3Proxy,
    grpc,
    auth: { authorization: `Bearer ${token}` },
    token,
    assets: new Map(),
    routes: new Set(),
    audit: () => audit(deployment),
    // Grace 0: nothing is in flight when the test collects.
    gc: () => runGc(deployment, '--grace', '0'),
    async close() {
      dbProxy.restore();
      s3Proxy.restore();
      grpc.close();
      await gateway.close();
      await service.close();
      await dbProxy.close();
      await s3Proxy.close();
      await deployment.cleanup();
    },
  };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** One REST call with its status, JSON body and duration; a network failure is status 0. */
async function call(
  world: World,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${world.url}${path}`, {
      ...init,
      headers: { ...world.auth, ...(init.headers as Record<string, string> | undefined) },
    });
    const text = await response.text();
    const body = response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : {};
    return { status: response.status, body, ms: performance.now() - started };
  } catch {
    return { status: 0, body: {}, ms: performance.now() - started };
  }
}

type Result = { status: number; body: Record<string, unknown>; ms: number };

function noiseForm(): { form: FormData; sha: string } {
  const bytes = randomBytes(2_048 + Math.floor(Math.random() * 4_096));
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'noise.bin');
  return { form, sha: sha256(bytes) };
}

async function upload(world: World, owner = -1): Promise<Result> {
  const { form, sha } = noiseForm();
  const result = await call(world, '/v1/assets/upload', { method: 'POST', body: form });
  if (result.status === 201) world.assets.set(result.body['id'] as string, { owner, acknowledged: sha, failedReplaces: new Set() });
  return result;
}

/** Replaces one of the worker's own assets, so replaces of one asset never overlap and the expected content is known. */
async function replace(world: World, owner: number): Promise<Result> {
  const mine = [...world.assets].filter(([, known]) => known.owner === owner);
  if (mine.length === 0) return upload(world, owner);
  const [id, known] = mine[Math.floor(Math.random() * mine.length)]!;
  const { form, sha } = noiseForm();
  const result = await call(world, `/v1/assets/${id}/replace`, { method: 'POST', body: form });
  if (result.status === 200) {
    known.acknowledged = sha;
    known.failedReplaces.clear();
  } else known.failedReplaces.add(sha);
  return result;
}

async function createRoute(world: World): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const path = `/faults/${randomBytes(6).toString('hex')}/:id`;
  const result = await call(world, '/v1/routing', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path, handler: 'probe' }),
  });
  if (result.status === 201) world.routes.add(result.body['id'] as string);
  return result;
}

/** Reads one asset's record and then its file; the answer of whichever step failed. */
async function readBack(world: World, id: string): Promise<Result & { sha?: string; recordSha?: unknown }> {
  const started = performance.now();
  const record = await call(world, `/v1/assets/${id}`);
  if (record.status !== 200) return record;
  try {
    const response = await fetch(record.body['url'] as string);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const ms = performance.now() - started;
    if (response.status !== 200) {
      const json = response.headers.get('content-type')?.startsWith('application/json');
      return { status: response.status, ms, body: json ? (JSON.parse(Buffer.from(bytes).toString()) as Record<string, unknown>) : {} };
    }
    return { status: 200, ms, body: record.body, sha: sha256(bytes), recordSha: record.body['sha256'] };
  } catch {
    return { status: 0, ms: performance.now() - started, body: {} };
  }
}

async function health(world: World): Promise<number> {
  return (await call(world, '/healthz')).status;
}

/**
 * Resolves with how long /healthz took to turn `status`. `boundMs` stays a bound (listed in test/README.md): readiness
 * that follows a dependency late is the fault this file guards against, and it is generous (8 s against a 250 ms interval).
 */
async function waitForHealth(world: World, status: number, boundMs: number): Promise<number> {
  const started = performance.now();
  await eventually(async () => (await health(world)) === status, { timeout: boundMs, message: `/healthz turning ${status}` });
  return performance.now() - started;
}

/**
 * Light load while a fault lasts: workers creating routes, uploading and
 * reading back. Every answer must be a success or a fast 503 `unavailable`.
 */
async function underLoad(
  world: World,
  durationMs: number,
): Promise<{ ok: number; unavailable: number; worstFailureMs: number; bad: string[] }> {
  const stats = { ok: 0, unavailable: 0, worstFailureMs: 0, bad: [] as string[] };
  const until = performance.now() + durationMs;
  const operations: Array<[string, (worker: number) => Promise<Result>]> = [
    ['create route', () => createRoute(world)],
    ['upload', (worker) => upload(world, worker)],
    [
      'get route',
      () => {
        const known = [...world.routes];
        return call(world, `/v1/routing/${known[Math.floor(Math.random() * known.length)]!}`);
      },
    ],
    ['replace', (worker) => replace(world, worker)],
    [
      'get asset and file',
      () => {
        const known = [...world.assets.keys()];
        return readBack(world, known[Math.floor(Math.random() * known.length)]!);
      },
    ],
  ];
  await Promise.all(
    Array.from({ length: LOAD_WORKERS }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i++) {
        const [name, operation] = operations[i % operations.length]!;
        const result = await operation(worker);
        if (result.status >= 200 && result.status < 300) stats.ok++;
        else if (result.status === 503 && result.body['code'] === 'unavailable' && typeof result.body['message'] === 'string') {
          stats.unavailable++;
          stats.worstFailureMs = Math.max(stats.worstFailureMs, result.ms);
        } else
          stats.bad.push(`${name}: status ${result.status} ${JSON.stringify(result.body).slice(0, 120)} after ${Math.round(result.ms)} ms`);
      }
    }),
  );
  return stats;
}

/** A gRPC upload straight to the service while a dependency is down: UNAVAILABLE, and how long it took. */
async function grpcUpload(world: World): Promise<{ code: number | undefined; ms: number }> {
  const started = performance.now();
  try {
    await world.grpc.upload(bearer(world.token), { filename: 'grpc.bin' }, randomBytes(4_096));
    return { code: Status.OK, ms: performance.now() - started };
  } catch (error) {
    return { code: (error as { code?: number }).code, ms: performance.now() - started };
  }
}

const faults = [
  ['MySQL', 'cut'],
  ['MySQL', 'stall'],
  ['S3', 'cut'],
  ['S3', 'stall'],
] as const;

// Started before any test is declared: ava wants every test declared in the module's first turn.
const world = await startWorld();
const title = 'cut and stalled MySQL and S3: fast 503s, readiness follows, recovery without a restart, nothing lost or half-written';

if (!world) test.skip(`${title} (MySQL is unreachable; set REQUIRE_MYSQL=1 to make that a failure)`, () => undefined);
else test(title, async (t) => faultCycles(t, world));

async function faultCycles(t: ExecutionContext, world: World): Promise<void> {
  t.teardown(() => world.close());

  // Each load worker owns an asset to replace from the start.
  for (let worker = 0; worker < LOAD_WORKERS; worker++) {
    t.is((await upload(world, worker)).status, 201);
    t.is((await createRoute(world)).status, 201);
  }
  t.is(await health(world), 200);

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const [dependency, fault] of faults) {
      const proxy = dependency === 'MySQL' ? world.db : world.s3;
      const what = `${dependency} ${fault} (cycle ${cycle + 1})`;
      proxy[fault]();

      const turnedMs = await waitForHealth(world, 503, FAIL_FAST_BOUND_MS);
      for (const name of ['', 'switchyard.v1.RouteService', 'switchyard.v1.AssetService', 'switchyard.v1.FileService']) {
        t.is(await world.grpc.healthCheck(name), 'NOT_SERVING', `${what}: grpc.health.v1.Health "${name}"`);
      }
      // A gRPC call straight to the service, beside the REST load through the gateway.
      const [direct, load] = await Promise.all([grpcUpload(world), underLoad(world, scaled(1_000, 4_000))]);
      t.is(direct.code, Status.UNAVAILABLE, `${what}: a gRPC upload is UNAVAILABLE`);
      t.true(
        direct.ms < FAIL_FAST_BOUND_MS,
        `${what}: the gRPC upload failed within ${FAIL_FAST_BOUND_MS} ms (${Math.round(direct.ms)} ms)`,
      );
      t.deepEqual(load.bad, [], `${what}: every answer is a success or 503`);
      t.true(load.unavailable > 0, `${what}: the fault was felt`);
      t.true(
        load.worstFailureMs < FAIL_FAST_BOUND_MS,
        `${what}: failures within ${FAIL_FAST_BOUND_MS} ms (worst ${Math.round(load.worstFailureMs)} ms)`,
      );

      proxy.restore();
      const recoveredMs = await waitForHealth(world, 200, FAIL_FAST_BOUND_MS + 5_000);
      t.is(await world.grpc.healthCheck(''), 'SERVING', `${what}: SERVING again`);
      // After the dependency returns, calls succeed again on the same processes.
      const after = [await createRoute(world), await upload(world)];
      t.deepEqual(
        after.map((result) => result.status),
        [201, 201],
        `${what}: calls succeed after the restore`,
      );
      t.log(
        `${what}: NOT_SERVING after ${Math.round(turnedMs)} ms; under load ${load.ok} ok, ${load.unavailable} × 503 (worst ${Math.round(load.worstFailureMs)} ms); SERVING again ${Math.round(recoveredMs)} ms after the restore`,
      );
    }
  }

  // Nothing acknowledged is lost, every record points at its own bytes, and a
  // replace that failed left the acknowledged content in place.
  let lostAnswers = 0;
  let failedReplaces = 0;
  for (const [id, known] of world.assets) {
    failedReplaces += known.failedReplaces.size;
    const read = await readBack(world, id);
    t.is(read.status, 200, `asset ${id} reads back`);
    t.is(read.recordSha, read.sha, `asset ${id}: the record's sha256 is its file's`);
    if (read.sha !== known.acknowledged && read.sha !== undefined && known.failedReplaces.has(read.sha)) lostAnswers++;
    else t.is(read.sha, known.acknowledged, `asset ${id} holds the bytes last acknowledged`);
  }
  for (const id of world.routes) t.is((await call(world, `/v1/routing/${id}`)).status, 200, `route ${id} is there`);

  // Straight from MySQL and the bucket: no record anywhere points at a missing or different blob.
  const stored = await world.audit();
  t.deepEqual(stored.broken, [], 'every record points at an existing blob with its sha256');
  t.true(stored.assetRows >= world.assets.size, 'every acknowledged asset has its record');
  const gc = await world.gc();
  t.is(gc.code, 0, gc.output);
  const collected = await world.audit();
  t.deepEqual(collected.broken, [], 'gc removed nothing a record points at');
  t.deepEqual(collected.blobKeys, collected.referencedKeys, 'after gc, exactly the referenced blobs are stored');
  t.log(
    `${world.assets.size} acknowledged assets and ${world.routes.size} routes all read back intact; ` +
      `${failedReplaces} failed replaces left the old content (${lostAnswers} committed but answered 503); ` +
      `gc collected ${stored.blobKeys.length - collected.blobKeys.length} orphan blobs`,
  );
}
