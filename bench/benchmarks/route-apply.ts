import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { watchRouteTable, type WatchedRouteTable } from '@switchyard/client';
import { createScratchDatabase } from '../harness/mysql-db.js';
import { startRedisServer } from '../harness/redis.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startOurs } from '../harness/servers.js';

const ROUTES = 5_000;
const ROUNDS = 5;
/** Rows per INSERT of the baseline: what a hand-written bulk load would send. */
const INSERT_BATCH = 500;

/**
 * A 5,000-route table applied as code (issue 41): two `npm start` servers on
 * one fresh MariaDB database with EVENTS_URL on a private redis-server; one
 * `POST /v1/routing:apply` of 5,000 new routes through A, timed until a
 * `watchRouteTable` client of B holds the revision it made (each round its
 * own owner and paths, so 5,000 creates each). The baseline is
 * the least the database must do: one bare transaction (mysql2, no Switchyard)
 * inserting the same 5,000 rows into the same `routes` table, in INSERTs of
 * 500 rows, in a workspace of its own. Medians of 5 rounds (of 3, one
 * machine gave ratios 4.35 to 6.01 within an hour).
 * Goal: time ratio ≤ 5.
 */
export async function routeApply5000(): Promise<BenchResult[]> {
  const redis = await startRedisServer();
  const ws = await createWorkspace('route-apply');
  const database = await createScratchDatabase('bench_apply');
  const stops: (() => Promise<void>)[] = [];
  const tables: WatchedRouteTable[] = [];
  try {
    const env = { DATABASE_URL: database.url, EVENTS_URL: redis.url, RATE_LIMIT_PER_SECOND: '0' };
    const a = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'a') });
    stops.push(() => a.stop());
    const b = await startOurs(ws, { ...env, DATA_DIR: join(ws.dir, 'b') });
    stops.push(() => b.stop());
    const oursMs: number[] = [];
    const bareMs: number[] = [];
    /** Until A answered the apply: the rest is the watcher on B catching up. */
    const answeredMs: number[] = [];
    const watched = watchRouteTable({ url: b.url, token: ws.token });
    tables.push(watched);
    await watched.ready;
    for (let round = 0; round < ROUNDS; round++) {
      // Each round its own owner and paths: 5,000 creates, nothing of an earlier round pruned.
      const routes = Array.from({ length: ROUTES }, (_, i) => ({ method: 'GET', path: `/apply/${round}/${i}/:id`, handler: `h${i % 50}` }));
      const started = performance.now();
      const revision = await applyOver(a.url, ws.token, `bench-${round}`, routes);
      answeredMs.push(performance.now() - started);
      await new Promise<void>((resolve) => {
        if (watched.revision >= revision) return resolve();
        const stop = watched.onChange(() => {
          if (watched.revision < revision) return;
          stop();
          resolve();
        });
      });
      oursMs.push(performance.now() - started);
      bareMs.push(await bareInsert(database.url, `bare-${round}-${randomBytes(4).toString('hex')}`, round, routes));
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    return [
      result('route-apply-5000', median(oursMs), median(bareMs), 'ms', 'lower', {
        goal: 'ratio <= 5',
        notes: {
          answeredMs: Math.round(median(answeredMs)),
          routes: ROUTES,
          rounds: ROUNDS,
          database: 'MariaDB',
          events: 'redis-server (private)',
          baseline: `one transaction, INSERTs of ${INSERT_BATCH} rows`,
        },
      }),
    ];
  } finally {
    for (const table of tables) table.close();
    for (const stop of stops.reverse()) await stop();
    await database.drop();
    await ws.cleanup();
    await redis.stop();
  }
}

async function applyOver(url: string, token: string, owner: string, routes: readonly object[]): Promise<number> {
  const response = await fetch(`${url}/v1/routing:apply`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ owner, prune: true, routes }),
  });
  const body = (await response.json()) as { revision?: number };
  if (response.status !== 200 || body.revision === undefined) throw new Error(`apply: ${response.status} ${JSON.stringify(body)}`);
  return body.revision;
}

/** The same rows straight into `routes`, in one transaction: its time in ms. */
async function bareInsert(
  url: string,
  workspace: string,
  round: number,
  routes: readonly { method: string; path: string; handler: string }[],
): Promise<number> {
  const connection = await createConnection(url);
  try {
    const now = Date.now();
    const rows = routes.map((route, i) => {
      const shape = route.path.replace(/:[^/]+/g, ':');
      return [
        `rt_bare${round}_${i}`,
        workspace,
        route.method,
        route.path,
        shape,
        createHash('sha256').update(shape).digest('hex'),
        '[]',
        route.handler,
        now,
        now,
        1,
        'bench',
      ];
    });
    const started = performance.now();
    await connection.beginTransaction();
    for (let i = 0; i < rows.length; i += INSERT_BATCH)
      await connection.query(
        'INSERT INTO routes (id, workspace, method, path, shape, shape_hash, middleware, handler, created_at, updated_at, revision, owner) VALUES ?',
        [rows.slice(i, i + INSERT_BATCH)],
      );
    await connection.commit();
    return performance.now() - started;
  } finally {
    await connection.end();
  }
}
