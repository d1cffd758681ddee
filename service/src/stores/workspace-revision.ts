import { sql, type Kysely, type Transaction } from 'kysely';
import { dialectOf } from './database.js';
import { preparedStatement } from './prepared-query.js';
import type { Database } from './schema.js';

/** Tables of per-workspace revisions: a row `(workspace, revision)` per workspace that has written. */
type RevisionTable = 'asset_revisions';

/**
 * Raises a workspace's revision by one inside a write transaction and answers
 * the new value, in one statement: the row's lock then orders the workspace's
 * writers until the transaction ends, so revisions are gap-free in commit
 * order. SQLite answers the value with RETURNING; MySQL as the statement's
 * insert id (LAST_INSERT_ID(expr), the documented sequence idiom).
 */
export function revisionRaiser(
  db: Kysely<Database>,
  table: RevisionTable,
): (trx: Transaction<Database>, workspace: string) => Promise<number> {
  const raise = (workspace: string) => db.insertInto(table).values({ workspace, revision: sql<number>`1` });
  if (dialectOf(db) === 'mysql') {
    const statement = preparedStatement<Database, unknown, [string]>(
      (workspace) => raise(workspace).onDuplicateKeyUpdate({ revision: sql<number>`LAST_INSERT_ID(revision + 1)` }),
      ['\0workspace'],
    );
    return async (trx, workspace) => {
      const result = await statement(trx, workspace);
      // One row affected: the workspace's first write, inserted at 1. Two: an existing row raised (mysql2 counts
      // found rows, and the value always changes), its new revision in the insert id.
      if (result.numAffectedRows === 1n) return 1;
      if (result.numAffectedRows !== 2n || result.insertId === undefined)
        throw new Error(`raising the ${table} revision answered ${result.numAffectedRows} rows, insert id ${result.insertId}`);
      return Number(result.insertId);
    };
  }
  const statement = preparedStatement<Database, { revision: number }, [string]>(
    (workspace) =>
      raise(workspace)
        .onConflict((conflict) => conflict.column('workspace').doUpdateSet({ revision: sql<number>`revision + 1` }))
        .returning('revision'),
    ['\0workspace'],
  );
  return async (trx, workspace) => Number((await statement(trx, workspace)).rows[0]!.revision);
}

/** A workspace's current revision (0 before its first write). */
export function revisionReader(db: Kysely<Database>, table: RevisionTable): (on: Kysely<Database>, workspace: string) => Promise<number> {
  const statement = preparedStatement<Database, { revision: number }, [string]>(
    (workspace) => db.selectFrom(table).select('revision').where('workspace', '=', workspace),
    ['\0workspace'],
  );
  return async (on, workspace) => {
    const [row] = (await statement(on, workspace)).rows;
    return row === undefined ? 0 : Number(row.revision);
  };
}

/** A MySQL deadlock victim (two first writes of a new workspace): worth running again. */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ER_LOCK_DEADLOCK';
}

/** How often a transaction MySQL picked as a deadlock's victim runs in all before its error stands. */
const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs `transaction` (one transaction, rolled back whole when it fails) again
 * when MySQL chose it as a deadlock's victim, up to DEADLOCK_ATTEMPTS times;
 * any other error, and the last deadlock, is thrown as it came.
 */
export async function retryingDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
