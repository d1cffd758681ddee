import { join } from 'node:path';
import { watchRouteTable, type WatchedRouteTable } from '@switchyard/client';
import { createScratchDatabase } from '../harness/mysql-db.js';
import { startRedisServer } from '../harness/redis.js';
import { result, type BenchResult } from '../harness/results.js';
import { createRouteOver, upsertArrivals } from '../harness/route-changes.js';
import { percentile } from '../harness/stats.js';
import { createWorkspace, startOurs } from '../harness/servers.js';

const CHANGES = 1_000;

/**
 * How long a route created through one instance takes to reach a
 * `watchRouteTable` client of another (issue 30): two `npm start` servers on
 * one fresh MariaDB database with EVENTS_URL on a private redis-server, 1,000
 * `POST /v1/routing` to A one after another, each timed from just before the
 * request to the change event of a client watching B (ours) and of a client
 * watching A (the baseline: the same change and watcher on one instance,
 * measured on the same requests, so machine noise hits both alike).
 * Without the feed, B would find each change by polling (up to 250 ms).
 */
export async function routeSyncCrossInstance(): Promise<BenchResult[]> {
  const ws = await createWorkspace('route-sync-cross');
  const database = await createScratchDatabase('bench_sync');
  const redis = await startRedisServer();
  const stops: (() => Promise<void>)[] = [];
  const tables: WatchedRouteTable[] = [];
  try {
    const env = { DATABASE_URL: database.url, EVENTS_URL: redis.url };
    // One after the other: both would migrate the database.
    const a = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'a') });
    stops.push(() => a.stop());
    const b = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'b') });
    stops.push(() => b.stop());
    const same = watchRouteTable({ url: a.url, token: ws.token });
    const cross = watchRouteTable({ url: b.url, token: ws.token });
    tables.push(same, cross);
    await Promise.all([same.ready, cross.ready]);
    const onSame = upsertArrivals(same);
    const onCross = upsertArrivals(cross);
    const crossMs: number[] = [];
    const sameMs: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const started = performance.now();
      const id = await createRouteOver(a.url, ws.token, `/cross/${i}/:id`);
      const [atSame, atCross] = await Promise.all([onSame(id), onCross(id)]);
      sameMs.push(atSame - started);
      crossMs.push(atCross - started);
    }
    const notes = { changes: CHANGES, database: 'MariaDB', events: 'redis-server (private)' };
    return [
      result('route-sync-cross-instance-p50', percentile(crossMs, 0.5), percentile(sameMs, 0.5), 'ms', 'lower', { notes }),
      result('route-sync-cross-instance-p99', percentile(crossMs, 0.99), percentile(sameMs, 0.99), 'ms', 'lower', {
        goal: 'ratio < 2',
        notes,
      }),
    ];
  } finally {
    for (const table of tables) table.close();
    for (const stop of stops.reverse()) await stop();
    await redis.stop();
    await database.drop();
    await ws.cleanup();
  }
}
