import { join } from 'node:path';
import Database from 'better-sqlite3';
import { seedRows } from '../baselines/baseline-store.js';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { BENCH_WORKSPACE, benchKey } from '../harness/tokens.js';
import { compareHttp } from '../harness/http-load.js';
import { createScratchDatabase } from '../harness/mysql-db.js';
import { plan } from '../harness/plan.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, seedAsset, startBaseline, startOurGateway, startOurService, startOurs, startPair } from '../harness/servers.js';

type Pair = { urls: Record<Side, string>; assetIds: Record<Side, string>; pids: Record<Side, number>; auth: Record<string, string> };

/** Starts ours and the minimal baseline on SQLite (or each on a fresh MariaDB database), runs `work`, tears all down. */
async function withRestPair<T>(name: string, mysql: boolean, work: (pair: Pair) => Promise<T>): Promise<T> {
  const ws = await createWorkspace(name);
  const dbs: Awaited<ReturnType<typeof createScratchDatabase>>[] = [];
  try {
    if (mysql) dbs.push(await createScratchDatabase('bench_ours'), await createScratchDatabase('bench_base'));
    const dbEnv = (i: number): Record<string, string> => (dbs[i] ? { DATABASE_URL: dbs[i].url } : {});
    const [ours, baseline] = await startPair(startOurs(ws, dbEnv(0)), startBaseline(ws, 'minimal-http-server.ts', dbEnv(1)));
    try {
      const assetIds = { ours: await seedAsset(ours.url, ws.token), baseline: baseline.assetId! };
      return await work({
        urls: { ours: ours.url, baseline: baseline.address },
        assetIds,
        pids: { ours: ours.pid, baseline: baseline.pid },
        auth: { authorization: `Bearer ${ws.token}` },
      });
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await Promise.all(dbs.map((db) => db.drop()));
    await ws.cleanup();
  }
}

/** Benchmarks 1 and 6: GET /v1/assets/{id} through gateway → gRPC → database, with JWT verification. */
export function getAsset(mysql: boolean) {
  const name = mysql ? 'mysql-get-asset' : 'rest-get-asset';
  return async (): Promise<BenchResult[]> =>
    withRestPair(name, mysql, async ({ urls, assetIds, pids, auth }) => {
      const stats = await compareHttp((side) => ({ url: `${urls[side]}/v1/assets/${assetIds[side]}`, headers: auth }), pids);
      return [
        result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', {
          goal: mysql ? undefined : 'ratio >= 0.5',
          notes: cpuNotes(stats),
        }),
        result(`${name}-p99`, stats.ours.p99, stats.baseline.p99, 'ms', 'lower'),
      ];
    });
}

/**
 * rest-get-asset-key: rest-get-asset's read with an API key (`Bearer sy_…`)
 * instead of a JWT, against the same read with the JWT on the same server,
 * alternately: what a key costs over a token (issue 45's goal: ≥ 0.95). Both
 * sides load one process, so its CPU notes are the same process's. Two paths
 * this close are told apart only by many short alternations: six rounds of
 * half the usual seconds each side, not two (two rounds of 8 s gave 0.735 to
 * 1.276 on one shared machine in a day).
 */
export async function getAssetKey(): Promise<BenchResult[]> {
  const name = 'rest-get-asset-key';
  const ws = await createWorkspace(name);
  try {
    const ours = await startOurs(ws);
    try {
      const assetId = await seedAsset(ours.url, ws.token);
      const key = await benchKey(ours.url, ws.secret, ['assets:read']);
      const bearer = { ours: `Bearer ${key}`, baseline: `Bearer ${ws.token}` };
      const stats = await compareHttp(
        (side) => ({ url: `${ours.url}/v1/assets/${assetId}`, headers: { authorization: bearer[side] } }),
        {
          ours: ours.pid,
          baseline: ours.pid,
        },
        { rounds: 6, measureSeconds: plan.measureSeconds / 2 },
      );
      return [
        result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 0.95', notes: cpuNotes(stats) }),
        result(`${name}-p99`, stats.ours.p99, stats.baseline.p99, 'ms', 'lower'),
      ];
    } finally {
      await ours.stop();
    }
  } finally {
    await ws.cleanup();
  }
}

/** Benchmark 2: POST /v1/routing, every request a distinct route so none is a duplicate. */
export async function createRoute(): Promise<BenchResult[]> {
  return withRestPair('rest-create-route', false, async ({ urls, pids, auth }) => {
    let n = 0; // shared by both sides, so no two requests of the run ever carry the same route
    const stats = await compareHttp((side) => {
      const setupRequest = (request: object) => ({
        ...request,
        body: JSON.stringify({ method: 'GET', path: `/bench/r${++n}/:id`, middleware: ['auth', 'log'], handler: 'showItem' }),
      });
      return {
        url: urls[side],
        requests: [{ method: 'POST', path: '/v1/routing', headers: { ...auth, 'content-type': 'application/json' }, setupRequest }],
      };
    }, pids);
    return [
      result('rest-create-route', stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { notes: cpuNotes(stats) }),
      result('rest-create-route-p99', stats.ours.p99, stats.baseline.p99, 'ms', 'lower'),
    ];
  });
}

/**
 * rest-get-asset-split: the same read with gateway and service as two
 * processes joined by gRPC, against node:http + a grpc-js client in front of a
 * bare grpc-js server doing the same JWT check and SQLite lookup. CPU per
 * request adds both processes of each side.
 */
export async function getAssetSplit(): Promise<BenchResult[]> {
  const name = 'rest-get-asset-split';
  const ws = await createWorkspace(name);
  const started: { stop(): Promise<void> }[] = [];
  try {
    const [service, baseService] = await startPair(startOurService(ws), startBaseline(ws, 'grpc-asset-server.ts'));
    started.push(service, baseService);
    const [gateway, baseGateway] = await startPair(
      startOurGateway(ws, service.grpc),
      startBaseline(ws, 'http-to-grpc.ts', { SERVICE_ADDRESS: baseService.address }),
    );
    started.push(gateway, baseGateway);
    const urls = { ours: gateway.url, baseline: baseGateway.address };
    const assetIds = { ours: await seedAsset(gateway.url, ws.token), baseline: baseService.assetId! };
    const pids = { ours: [gateway.pid, service.pid], baseline: [baseGateway.pid, baseService.pid] };
    const stats = await compareHttp(
      (side) => ({ url: `${urls[side]}/v1/assets/${assetIds[side]}`, headers: { authorization: `Bearer ${ws.token}` } }),
      pids,
    );
    return [
      result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 0.8', notes: cpuNotes(stats) }),
      result(`${name}-p99`, stats.ours.p99, stats.baseline.p99, 'ms', 'lower'),
    ];
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await ws.cleanup();
  }
}

/** Assets each side holds for rest-list-assets. */
const LISTED_ASSETS = 10_000;

/**
 * rest-list-assets: the first page of 50 of a workspace's 10,000 assets,
 * newest first, against the minimal server running the same keyset query
 * (`WHERE workspace = ? ORDER BY id DESC LIMIT 51` on the same index).
 * Ours is seeded straight into its SQLite file (uploading 10,000 files would
 * only slow the run), rows shaped like uploads.
 */
export async function listAssets(): Promise<BenchResult[]> {
  const name = 'rest-list-assets';
  const ws = await createWorkspace(name);
  try {
    const [ours, baseline] = await startPair(
      startOurs(ws),
      startBaseline(ws, 'minimal-http-server.ts', { SEED_ASSETS: String(LISTED_ASSETS) }),
    );
    try {
      await seedAsset(ours.url, ws.token);
      seedAssetRows(join(ws.dir, 'ours', 'switchyard.sqlite'), LISTED_ASSETS);
      const urls = { ours: ours.url, baseline: baseline.address };
      const pids = { ours: ours.pid, baseline: baseline.pid };
      const auth = { authorization: `Bearer ${ws.token}` };
      const stats = await compareHttp((side) => ({ url: `${urls[side]}/v1/assets?pageSize=50`, headers: auth }), pids);
      return [
        result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 0.5', notes: cpuNotes(stats) }),
        result(`${name}-p99`, stats.ours.p99, stats.baseline.p99, 'ms', 'lower'),
      ];
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

/** seedRows (the baseline's seed), in one transaction, into a running server's SQLite database (WAL lets a second writer in). */
function seedAssetRows(file: string, count: number): void {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      'INSERT INTO assets (id, workspace, label, blob_id, blob_key, type, size, sha256, width, height, created_at, uploaded_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const row of seedRows(BENCH_WORKSPACE, count)) {
        insert.run(
          row.id,
          row.workspace,
          row.label,
          row.blob_id,
          row.blob_key,
          row.type,
          row.size,
          row.sha256,
          row.width,
          row.height,
          row.created_at,
          row.uploaded_at,
          row.version,
        );
      }
    })();
  } finally {
    db.close();
  }
}
