// Dependency faults: the network between the service and MySQL, and between the service and S3
// (s3rver), runs through TCP proxies the test cuts, stalls and restores under load. Calls must fail
// fast with `unavailable` (503 on REST), readiness must turn 503 / NOT_SERVING, everything must
// recover without a restart, and no acknowledged write may be lost or half-written.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadGatewayConfig } from '../../gateway/src/config.js';
import { listen } from '../../gateway/src/http/listener.js';
import { createGatewayLogger } from '../../gateway/src/logger.js';
import { startGateway, type GatewayHandle } from '../../gateway/src/start.js';
import { startService, type ServiceHandle } from '../../service/src/app.js';
import { loadServiceConfig } from '../../service/src/config.js';
import { createLogger } from '../../service/src/logger.js';
import { createTestMysqlDatabase, type TestMysqlDatabase } from '../../service/src/testing/mysql.js';
import { startS3rver, type TestS3 } from '../../service/src/testing/s3rver.js';
import { mintToken } from '../rest/support/tokens.js';
import { scaled } from './support/soak.js';
import { TcpProxy } from './support/tcp-proxy.js';

/** Each store call gives up after this; a failing call is answered within a few of them (S3 retries). */
const STORAGE_TIMEOUT_MS = 1_000;
/** The longest any call may take while a dependency is down: fail fast, never hang. */
const FAIL_FAST_BOUND_MS = 8 * STORAGE_TIMEOUT_MS;
/** Readiness follows within a health interval plus a check timeout. */
const HEALTH_INTERVAL_MS = 250;
const CYCLES = scaled(1, 10);
const LOAD_WORKERS = scaled(2, 8);

interface World {
  readonly url: string;
  readonly db: TcpProxy;
  readonly s3: TcpProxy;
  readonly auth: { authorization: string };
  /** sha256 of every acknowledged asset's current content, by id. */
  readonly acknowledged: Map<string, string>;
  /** Ids of routes whose create was acknowledged. */
  readonly routes: Set<string>;
  close(): Promise<void>;
}

async function startWorld(): Promise<World | undefined> {
  const mysql: TestMysqlDatabase | undefined = await createTestMysqlDatabase();
  if (!mysql) return undefined;
  const s3: TestS3 = await startS3rver();
  const mysqlUrl = new URL(mysql.url);
  const dbProxy = await TcpProxy.start({ host: mysqlUrl.hostname, port: Number(mysqlUrl.port || 3306) });
  const s3Proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
  mysqlUrl.host = dbProxy.address;

  // The SDK takes S3 credentials from the environment; s3rver's are fixed.
  process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-faults-'));
  const secret = randomBytes(32).toString('base64url');
  const listener = await listen('127.0.0.1', 0);
  const env = {
    HOST: '127.0.0.1',
    PORT: String(listener.port),
    GRPC_PORT: '0',
    DATA_DIR: dataDir,
    AUTH_SECRET: secret,
    DATABASE_URL: mysqlUrl.href,
    BLOB_STORE: 's3',
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: `http://${s3Proxy.address}`,
    STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
    RATE_LIMIT_PER_SECOND: '0',
  };
  const quiet = { write: () => undefined };
  const service: ServiceHandle = await startService(loadServiceConfig(env), { logger: createLogger('warn', quiet), healthIntervalMs: HEALTH_INTERVAL_MS });
  const gatewayConfig = loadGatewayConfig(env);
  const gateway: GatewayHandle = await startGateway(
    { ...gatewayConfig, cdnUrl: loadServiceConfig(env).cdnUrl },
    { serviceUrl: `http://${service.address}`, log: createGatewayLogger('warn', quiet), listener, shutdownTimeoutMs: 2_000 },
  );
  const token = await mintToken(secret, { workspace: 'faults' });
  return {
    url: gateway.url,
    db: dbProxy,
    s3: s3Proxy,
    auth: { authorization: `Bearer ${token}` },
    acknowledged: new Map(),
    routes: new Set(),
    async close() {
      dbProxy.restore();
      s3Proxy.restore();
      await gateway.close();
      await service.close();
      await dbProxy.close();
      await s3Proxy.close();
      await s3.close();
      await mysql.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** One REST call with its status, JSON body and duration; a network failure is status 0. */
async function call(world: World, path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${world.url}${path}`, { ...init, headers: { ...world.auth, ...(init.headers as Record<string, string> | undefined) } });
    const text = await response.text();
    const body = response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : {};
    return { status: response.status, body, ms: performance.now() - started };
  } catch {
    return { status: 0, body: {}, ms: performance.now() - started };
  }
}

async function upload(world: World): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const bytes = randomBytes(2_048 + Math.floor(Math.random() * 4_096));
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'noise.bin');
  const result = await call(world, '/v1/assets/upload', { method: 'POST', body: form });
  if (result.status === 201) world.acknowledged.set(result.body['id'] as string, sha256(bytes));
  return result;
}

async function createRoute(world: World): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const path = `/faults/${randomBytes(6).toString('hex')}/:id`;
  const result = await call(world, '/v1/routing', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'GET', path, handler: 'probe' }) });
  if (result.status === 201) world.routes.add(result.body['id'] as string);
  return result;
}

/** Reads one acknowledged asset's record and bytes; the status of whichever step failed. */
async function readBack(world: World, id: string): Promise<{ status: number; ms: number; sha?: string }> {
  const started = performance.now();
  const record = await call(world, `/v1/assets/${id}`);
  if (record.status !== 200) return { status: record.status, ms: performance.now() - started };
  try {
    const response = await fetch(record.body['url'] as string);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, ms: performance.now() - started, ...(response.status === 200 ? { sha: sha256(bytes) } : {}) };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

async function health(world: World): Promise<number> {
  return (await call(world, '/healthz')).status;
}

async function waitForHealth(world: World, status: number, boundMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < boundMs) {
    if ((await health(world)) === status) return performance.now() - started;
    await sleep(50);
  }
  throw new Error(`/healthz did not turn ${status} within ${boundMs} ms`);
}

/**
 * Light load while a fault lasts: workers creating routes, uploading and
 * reading back. Every answer must be a success or a fast 503 `unavailable`.
 */
async function underLoad(world: World, durationMs: number): Promise<{ ok: number; unavailable: number; worstFailureMs: number; bad: string[] }> {
  const stats = { ok: 0, unavailable: 0, worstFailureMs: 0, bad: [] as string[] };
  const until = performance.now() + durationMs;
  const ids = () => [...world.acknowledged.keys()];
  const operations = [
    () => createRoute(world),
    () => upload(world),
    async () => {
      const known = ids();
      return readBack(world, known[Math.floor(Math.random() * known.length)]!);
    },
  ];
  await Promise.all(
    Array.from({ length: LOAD_WORKERS }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i++) {
        const result = await operations[i % operations.length]!();
        if (result.status >= 200 && result.status < 300) stats.ok++;
        else if (result.status === 503) {
          stats.unavailable++;
          stats.worstFailureMs = Math.max(stats.worstFailureMs, result.ms);
        } else stats.bad.push(`status ${result.status} after ${Math.round(result.ms)} ms`);
      }
    }),
  );
  return stats;
}

const faults = [
  ['MySQL', 'cut'],
  ['MySQL', 'stall'],
  ['S3', 'cut'],
  ['S3', 'stall'],
] as const;

test('cut and stalled MySQL and S3: fast 503s, readiness follows, recovery without a restart, nothing lost or half-written', async (t) => {
  const world = await startWorld();
  if (!world) return t.pass('MySQL unreachable: skipped (REQUIRE_MYSQL=1 makes this a failure)');
  t.teardown(() => world.close());

  for (let i = 0; i < 3; i++) {
    t.is((await upload(world)).status, 201);
    t.is((await createRoute(world)).status, 201);
  }
  t.is(await health(world), 200);

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const [dependency, fault] of faults) {
      const proxy = dependency === 'MySQL' ? world.db : world.s3;
      const what = `${dependency} ${fault} (cycle ${cycle + 1})`;
      proxy[fault]();

      const turnedMs = await waitForHealth(world, 503, FAIL_FAST_BOUND_MS);
      const load = await underLoad(world, scaled(1_500, 4_000));
      t.deepEqual(load.bad, [], `${what}: every answer is a success or 503`);
      t.true(load.unavailable > 0, `${what}: the fault was felt`);
      t.true(load.worstFailureMs < FAIL_FAST_BOUND_MS, `${what}: failures within ${FAIL_FAST_BOUND_MS} ms (worst ${Math.round(load.worstFailureMs)} ms)`);

      proxy.restore();
      const recoveredMs = await waitForHealth(world, 200, FAIL_FAST_BOUND_MS + 5_000);
      // After the dependency returns, calls succeed again on the same processes.
      const after = [await createRoute(world), await upload(world)];
      t.deepEqual(after.map((result) => result.status), [201, 201], `${what}: calls succeed after the restore`);
      t.log(`${what}: NOT_SERVING after ${Math.round(turnedMs)} ms; under load ${load.ok} ok, ${load.unavailable} × 503 (worst ${Math.round(load.worstFailureMs)} ms); SERVING again ${Math.round(recoveredMs)} ms after the restore`);
    }
  }

  // Nothing acknowledged is lost, and every record points at its own bytes.
  for (const [id, expected] of world.acknowledged) {
    const read = await readBack(world, id);
    t.is(read.status, 200, `asset ${id} reads back`);
    t.is(read.sha, expected, `asset ${id} has the bytes that were acknowledged`);
  }
  for (const id of world.routes) t.is((await call(world, `/v1/routing/${id}`)).status, 200, `route ${id} is there`);
  t.log(`${world.acknowledged.size} acknowledged assets and ${world.routes.size} routes all read back intact`);
});
