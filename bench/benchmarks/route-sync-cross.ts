import { join } from 'node:path';
import { watchRouteTable, type WatchedRouteTable } from '@switchyard/client';
import { createScratchDatabase } from '../harness/mysql-db.js';
import { startNatsServer } from '../harness/nats.js';
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
  const redis = await startRedisServer();
  try {
    return await crossInstance(
      'route-sync-cross-instance',
      'cross',
      CHANGES,
      { EVENTS_URL: redis.url },
      'redis-server (private)',
      'ratio < 2',
    );
  } finally {
    await redis.stop();
  }
}

/**
 * The same with EVENTS_URL on a private nats-server (test/scale's second
 * broker), 200 changes; the same goal as with Redis.
 */
export async function routeSyncCrossInstanceNats(): Promise<BenchResult[]> {
  const nats = await startNatsServer();
  try {
    return await crossInstance(
      'route-sync-cross-instance-nats',
      'nats',
      200,
      { EVENTS_URL: nats.url },
      'nats-server (private)',
      'ratio < 2',
    );
  } finally {
    await nats.stop();
  }
}

/**
 * The same without EVENTS_URL: B finds each change by polling the shared
 * database (WATCH_POLL_MS, 250 ms). The contract promises such a change
 * reaches watchers on every other instance within 1 s, which
 * test/rest/route-watch.test.ts checks only as an outcome; 60 changes
 * (about 15 s at a poll each) give its p99.
 */
export function routeSyncCrossInstancePolling(): Promise<BenchResult[]> {
  return crossInstance('route-sync-cross-instance-polling', 'polled', 60, {}, 'none (polling)', 'ours < 1000 ms');
}

async function crossInstance(
  name: string,
  prefix: string,
  changes: number,
  events: Record<string, string>,
  eventsNote: string,
  p99Goal: string,
): Promise<BenchResult[]> {
  const ws = await createWorkspace(name);
  const database = await createScratchDatabase('bench_sync');
  const stops: (() => Promise<void>)[] = [];
  const tables: WatchedRouteTable[] = [];
  try {
    const env = { DATABASE_URL: database.url, ...events };
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
    for (let i = 0; i < changes; i++) {
      const started = performance.now();
      const id = await createRouteOver(a.url, ws.token, `/${prefix}/${i}/:id`);
      const [atSame, atCross] = await Promise.all([onSame(id), onCross(id)]);
      sameMs.push(atSame - started);
      crossMs.push(atCross - started);
    }
    const notes = { changes, database: 'MariaDB', events: eventsNote };
    return [
      result(`${name}-p50`, percentile(crossMs, 0.5), percentile(sameMs, 0.5), 'ms', 'lower', { notes }),
      result(`${name}-p99`, percentile(crossMs, 0.99), percentile(sameMs, 0.99), 'ms', 'lower', { goal: p99Goal, notes }),
    ];
  } finally {
    for (const table of tables) table.close();
    for (const stop of stops.reverse()) await stop();
    await database.drop();
    await ws.cleanup();
  }
}
