import { AsyncLocalStorage } from 'node:async_hooks';
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult } from 'kysely';
import type { Pool, PoolConnection } from 'mysql2';
import { wantsArrayRows } from './array-rows.js';
import { wantsBinaryParameters } from './binary-parameters.js';

/**
 * A mysql2 pool for Kysely whose queries give up after `timeoutMs`. mysql2
 * alone waits forever on a connection whose peer went silent (a stalled
 * network, a hung server), and its own query timeout leaves that connection
 * in the pool, where the next query queues behind the dead one. Here a timed
 * out connection is destroyed, so the pool replaces it and calls fail fast
 * (`PROTOCOL_SEQUENCE_TIMEOUT`, mapped to `unavailable`) until the database
 * answers again, then recover without a restart. A query marked for array
 * rows (array-rows.ts) gets them from mysql2's `rowsAsArray`; one marked for
 * binary parameters (binary-parameters.ts) runs as a prepared statement.
 */
export function withQueryTimeout(pool: Pool, timeoutMs: number): MysqlPool {
  return {
    getConnection: (callback) =>
      pool.getConnection((error, connection) => callback(error, error ? connection : timed(connection, timeoutMs))),
    end: (callback) => pool.end(callback),
  };
}

const unbounded = new AsyncLocalStorage<true>();

/**
 * Runs `work` with its queries free of the per-query timeout: schema migrations, whose ALTER TABLE on
 * a large table may run for minutes, and whose lock a second process starting at the same time waits
 * for (Kysely's migrator waits on MySQL's GET_LOCK). Everything else keeps failing fast.
 */
export async function withoutQueryTimeout<T>(work: () => Promise<T>): Promise<T> {
  unboundedRuns++;
  try {
    return await unbounded.run(true, work);
  } finally {
    // An enabled AsyncLocalStorage keeps Node 20's promise hooks on for the whole process, a cost on every
    // promise of every request after start-up (about 8 % of a route watch's CPU in a profile): it is
    // turned off again once no migration runs. Queries outside a run see no store, as before.
    if (--unboundedRuns === 0) unbounded.disable();
  }
}

/** Migrations running now (withoutQueryTimeout calls not yet settled). */
let unboundedRuns = 0;

function timed(connection: PoolConnection, timeoutMs: number): MysqlPoolConnection {
  const query = (sql: string, parameters: unknown[], callback?: (error: unknown, result: MysqlQueryResult) => void) => {
    if (callback === undefined) return connection.query(sql, parameters) as unknown as ReturnType<MysqlPoolConnection['query']>;
    const timeout = unbounded.getStore() === true ? undefined : timeoutMs;
    const done = (error: unknown, result: unknown) => {
      if ((error as { code?: unknown } | null)?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') connection.destroy();
      callback(error, result as MysqlQueryResult);
    };
    if (wantsBinaryParameters(sql)) connection.execute({ sql, values: parameters, timeout }, done);
    else connection.query({ sql, values: parameters, timeout, rowsAsArray: wantsArrayRows(sql) }, done);
    return undefined;
  };
  return { query: query as MysqlPoolConnection['query'], release: () => connection.release() };
}
