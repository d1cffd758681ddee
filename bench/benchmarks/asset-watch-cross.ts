import { join } from 'node:path';
import { watchAssets, watchRouteTable, type AssetWatch, type WatchedRouteTable } from '@switchyard/client';
import { createScratchDatabase } from '../harness/mysql-db.js';
import { startRedisServer } from '../harness/redis.js';
import { result, type BenchResult } from '../harness/results.js';
import { createRouteOver, upsertArrivals } from '../harness/route-changes.js';
import { percentile } from '../harness/stats.js';
import { createWorkspace, seedAsset, startOurs } from '../harness/servers.js';

const CHANGES = 400;

/**
 * How long an asset change made through one instance takes to reach an SSE
 * watcher (`watchAssets`) of another instance's gateway, against the same for
 * a route change (issue 40): two `npm start` servers on one fresh MariaDB
 * database with EVENTS_URL on a private redis-server; in turns, a rename of an
 * asset (`PATCH /v1/assets/{id}`) and a route creation (`POST /v1/routing`)
 * through A, each timed from just before its request to the event on B. The
 * two kinds alternate on the same servers, so machine noise hits both alike.
 * Goal: the asset watch's p99 at most 1.5 times the route watch's.
 */
export async function assetWatchLatency(): Promise<BenchResult[]> {
  const redis = await startRedisServer();
  const ws = await createWorkspace('asset-watch-latency');
  const database = await createScratchDatabase('bench_asset_watch');
  const stops: (() => Promise<void>)[] = [];
  const watches: (AssetWatch | WatchedRouteTable)[] = [];
  try {
    const env = { DATABASE_URL: database.url, EVENTS_URL: redis.url };
    // One after the other: both would migrate the database.
    const a = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'a') });
    stops.push(() => a.stop());
    const b = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'b') });
    stops.push(() => b.stop());
    const assetId = await seedAsset(a.url, ws.token);
    const assets = watchAssets({ url: b.url, token: ws.token });
    const routes = watchRouteTable({ url: b.url, token: ws.token });
    watches.push(assets, routes);
    await Promise.all([assets.ready, routes.ready]);
    const onAsset = renameArrivals(assets);
    const onRoute = upsertArrivals(routes);
    const assetMs: number[] = [];
    const routeMs: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const name = `renamed-${i}.png`;
      let started = performance.now();
      await renameOver(a.url, ws.token, assetId, name);
      assetMs.push((await onAsset(name)) - started);
      started = performance.now();
      const id = await createRouteOver(a.url, ws.token, `/asset-watch/${i}/:id`);
      routeMs.push((await onRoute(id)) - started);
    }
    const notes = { changes: CHANGES, database: 'MariaDB', events: 'redis-server (private)', baseline: 'a route change, the same way' };
    return [
      result('asset-watch-latency-p50', percentile(assetMs, 0.5), percentile(routeMs, 0.5), 'ms', 'lower', { notes }),
      result('asset-watch-latency-p99', percentile(assetMs, 0.99), percentile(routeMs, 0.99), 'ms', 'lower', {
        goal: 'ratio <= 1.5',
        notes,
      }),
    ];
  } finally {
    for (const watch of watches) watch.close();
    for (const stop of stops.reverse()) await stop();
    await database.drop();
    await ws.cleanup();
    await redis.stop();
  }
}

async function renameOver(url: string, token: string, id: string, name: string): Promise<void> {
  const response = await fetch(`${url}/v1/assets/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (response.status !== 200) throw new Error(`rename: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** When each rename (by the name it gave) reached the watch: like upsertArrivals, for asset changes. */
function renameArrivals(watch: AssetWatch): (name: string) => Promise<number> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  watch.onEvent((event) => {
    if (event.type !== 'change' || event.change.type !== 'asset.updated') return;
    const name = event.change.asset?.name ?? '';
    arrived.set(name, performance.now());
    waiting.get(name)?.();
  });
  return async (name) => {
    if (!arrived.has(name)) await new Promise<void>((resolve) => waiting.set(name, resolve));
    waiting.delete(name);
    return arrived.get(name)!;
  };
}
