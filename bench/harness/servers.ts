import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildServer } from './child-server.js';
import { PIXEL_PNG } from './pixel.js';
import { benchToken } from './tokens.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A scratch directory, a shared AUTH_SECRET and a token both sides accept. */
export interface Workspace {
  readonly dir: string;
  readonly secret: string;
  readonly token: string;
  cleanup(): Promise<void>;
}

export async function createWorkspace(name: string): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), `switchyard-bench-${name}-`));
  const secret = randomBytes(32).toString('base64url');
  return { dir, secret, token: await benchToken(secret), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The per-workspace rate limit is off: the load is one workspace far above the
 * default limit, and the baselines have no limiter to pay for.
 */
const UNLIMITED = { RATE_LIMIT_PER_SECOND: '0', METRICS_PORT: '0' } as const;

/** The compiled CLI, as `npm start` runs it (`npm run bench` builds first). */
const CLI = join(ROOT, 'cli/dist/bin.js');

/** Ours: the all-in-one server (migrations, gRPC service and REST gateway in one process). */
export async function startOurs(ws: Workspace, env: Record<string, string> = {}): Promise<ChildServer & { url: string; grpc: string }> {
  const dataDir = env['DATA_DIR'] ?? join(ws.dir, 'ours');
  const child = await startChild({
    args: [CLI, 'start'],
    env: { HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_SECRET: ws.secret, ...UNLIMITED, ...env },
    ready: /REST gateway\s+(http:\/\/\S+)\s+gRPC service\s+(\S+)/,
    // One log per data dir: two servers of one workspace must not read each other's ready line.
    logFile: `${dataDir}.log`,
  });
  const [, url, grpc] = child.ready;
  return { ...child, url: url!, grpc: grpc! };
}

/** Ours, gRPC only: the service alone (`npm run service`), for the transport benchmark. */
export async function startOurService(ws: Workspace, env: Record<string, string> = {}): Promise<ChildServer & { grpc: string }> {
  const child = await startChild({
    args: [CLI, 'service'],
    env: {
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      DATA_DIR: join(ws.dir, 'ours'),
      AUTH_SECRET: ws.secret,
      CDN_URL: 'http://cdn.bench/files',
      ...UNLIMITED,
      ...env,
    },
    ready: /listening on (127\.0\.0\.1:\d+)/,
    logFile: join(ws.dir, 'service.log'),
  });
  return { ...child, grpc: child.ready[1]! };
}

/** Ours, split: the gateway alone (`switchyard gateway`) in front of a service process at `serviceAddress`. */
export async function startOurGateway(ws: Workspace, serviceAddress: string): Promise<ChildServer & { url: string }> {
  const child = await startChild({
    args: [CLI, 'gateway'],
    env: { HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0', SERVICE_URL: `http://${serviceAddress}` },
    ready: /gateway listening on (http:\/\/\S+)/,
    logFile: join(ws.dir, 'gateway.log'),
  });
  return { ...child, url: child.ready[1]! };
}

/** A baseline from bench/baselines/, which prints `ready url=… [asset=…]` or `ready grpc=…`. */
export async function startBaseline(
  ws: Workspace,
  file: string,
  env: Record<string, string> = {},
): Promise<ChildServer & { address: string; assetId?: string }> {
  const child = await startChild({
    args: ['--import', 'tsx', join(ROOT, 'bench/baselines', file)],
    env: { HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: ws.dir, AUTH_SECRET: ws.secret, ...env },
    ready: /ready (?:url|grpc)=(\S+)(?: asset=(\S+))?/,
    logFile: join(ws.dir, `${file}.log`),
  });
  const [, address, assetId] = child.ready;
  return { ...child, address: address!, ...(assetId ? { assetId } : {}) };
}

/** Uploads the pixel through ours' REST API; resolves with the asset id. */
export async function seedAsset(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.set('label', 'bench');
  form.set('file', new Blob([PIXEL_PNG], { type: 'image/png' }), 'pixel.png');
  const res = await fetch(`${url}/v1/assets/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || !body.id) throw new Error(`seeding an asset failed: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** Starts two servers at once; if either fails, stops the other before rethrowing. */
export async function startPair<A extends ChildServer, B extends ChildServer>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'fulfilled' && rb.status === 'fulfilled') return [ra.value, rb.value];
  await Promise.all([ra, rb].map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
  throw ra.status === 'rejected' ? ra.reason : (rb as PromiseRejectedResult).reason;
}
