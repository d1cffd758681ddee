import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import {
  routeChangeEvent,
  DEFAULT_ROUTE_HISTORY,
  SwitchyardError,
  type NewRouteRecord,
  type RouteChange,
  type RouteCursor,
  type RouteRecord,
  type RouteRecordUpdate,
  type RouteRevisionWrite,
  type RouteRevisionWritten,
  type RouteScope,
  type RouteStore,
  type RouteWriteOrigin,
  revisionRefusals,
  wholeRevisions,
} from '@switchyard/core';
import type { KyselyOutbox } from './kysely-outbox.js';
import { databaseError } from './database-errors.js';
import { dialectOf } from './database.js';
import { bulkInsert } from './bulk-insert.js';
import { preparedStatement } from './prepared-query.js';
import type { Database, RouteChangesTable, RoutesTable } from './schema.js';
import { retryingDeadlocks } from './workspace-revision.js';
import {
  changeRow,
  COLUMNS,
  factsOf,
  freeze,
  frozenChange,
  shapeHash,
  storedRecord,
  toChange,
  toRecord,
  toRow,
  type RouteRow,
} from './kysely-route-rows.js';

/**
 * The change log is trimmed on one write in this many, not on every write past
 * `history`: it then holds up to TRIM_EVERY - 1 changes more than `history`,
 * and changesSince answers from the last `history` only, so callers see the
 * same bounded history as before. Written for speed: past `history`, a DELETE
 * in every write transaction would add to the CPU of every write.
 * Justified by rest-create-route (bench/hand-written-parts.md#change-log-trim).
 */
const TRIM_EVERY = 64;

/** Rows per statement when a revision writes many: within SQLite's and MySQL's limits on bound parameters at a dozen columns. */
const ROWS_PER_STATEMENT = 500;

const ROUTE_COLUMNS = [
  'id',
  'workspace',
  'method',
  'path',
  'shape',
  'shape_hash',
  'middleware',
  'handler',
  'owner',
  'created_at',
  'updated_at',
  'revision',
] as const satisfies readonly (keyof RoutesTable)[];
const CHANGE_COLUMNS = [
  'workspace',
  'revision',
  'seq',
  'kind',
  'route_id',
  'before_record',
  'after_record',
  'changed_at',
  'actor',
  'owner',
] as const satisfies readonly (keyof RouteChangesTable)[];

/** An owner's routes in a workspace, read by routes_by_owner (routes-by-owner.test.ts checks the plan). */
export function ownedRoutesQuery(db: Kysely<Database> | Transaction<Database>, workspace: string, owner: string) {
  return db.selectFrom('routes').select(COLUMNS).where('workspace', '=', workspace).where('owner', '=', owner);
}

/** Thrown inside a write transaction to roll it back when its target does not exist; never escapes. */
class NothingToWrite extends Error {}

/**
 * RouteStore on MySQL or SQLite. The unique key (workspace, method, shape
 * hash) decides duplicates, even across instances. Every write runs in one
 * transaction that first raises the workspace's row in route_revisions (its
 * lock orders concurrent writers, so revisions are gap-free in commit order),
 * then writes the route (an apply: every route of its plan) and a change-log
 * row per change, then (every TRIM_EVERY revisions) trims the log to its
 * last `history` revisions.
 */
export class KyselyRouteStore implements RouteStore {
  readonly #db: Kysely<Database>;
  readonly #history: number;
  readonly #mysql: boolean;
  // The statements of every write, built and compiled once (prepared-query.ts).
  // Justified by rest-create-route (bench/hand-written-parts.md#prepared-queries).
  readonly #raiseRevision;
  readonly #selectRevision;
  readonly #insertRoute;
  readonly #insertChange;
  readonly #trimChanges;
  readonly #insertRoutes = bulkInsert('routes', ROUTE_COLUMNS);
  // Each change row holds the route before and after as JSON: as parameters, not escaped into the SQL.
  readonly #insertChanges = bulkInsert('route_changes', CHANGE_COLUMNS, { binaryParameters: true });

  readonly #outbox: KyselyOutbox | undefined;

  constructor(db: Kysely<Database>, options: { history?: number | undefined; outbox?: KyselyOutbox | undefined } = {}) {
    this.#outbox = options.outbox;
    this.#db = db;
    this.#history = options.history ?? DEFAULT_ROUTE_HISTORY;
    this.#mysql = dialectOf(db) === 'mysql';
    const raise = (workspace: string) => db.insertInto('route_revisions').values({ workspace, revision: sql<number>`1` });
    // SQLite answers the new value in the same statement. MySQL reports it as the statement's insert id
    // (LAST_INSERT_ID(expr), the documented sequence idiom), so it needs no second round trip either.
    this.#raiseRevision = this.#mysql
      ? preparedStatement<Database, unknown, [string]>(
          (workspace) => raise(workspace).onDuplicateKeyUpdate({ revision: sql<number>`LAST_INSERT_ID(revision + 1)` }),
          ['\0workspace'],
        )
      : preparedStatement<Database, { revision: number }, [string]>(
          (workspace) =>
            raise(workspace)
              .onConflict((conflict) => conflict.column('workspace').doUpdateSet({ revision: sql<number>`revision + 1` }))
              .returning('revision'),
          ['\0workspace'],
        );
    this.#selectRevision = preparedStatement<Database, { revision: number }, [string]>(
      (workspace) => db.selectFrom('route_revisions').select('revision').where('workspace', '=', workspace),
      ['\0workspace'],
    );
    this.#insertRoute = preparedStatement<Database, unknown, unknown[]>(
      (...values) => db.insertInto('routes').values(rowOf(ROUTE_COLUMNS, values)),
      ROUTE_COLUMNS.map((column) => `\0${column}`),
    );
    this.#insertChange = preparedStatement<Database, unknown, unknown[]>(
      (...values) => db.insertInto('route_changes').values(rowOf(CHANGE_COLUMNS, values)),
      CHANGE_COLUMNS.map((column) => `\0${column}`),
    );
    this.#trimChanges = preparedStatement<Database, unknown, [string, number]>(
      (workspace, upTo) => db.deleteFrom('route_changes').where('workspace', '=', workspace).where('revision', '<=', upTo),
      ['\0workspace', -1],
    );
  }

  async insert(record: NewRouteRecord, origin?: RouteWriteOrigin): Promise<RouteRecord> {
    const [created] = await this.#write(
      record.workspace,
      async (trx, revision) => {
        const stored: RouteRecord = { ...record, revision };
        const row = toRow(stored);
        await this.#insertRoute(trx, ...ROUTE_COLUMNS.map((column) => row[column]));
        return [{ kind: 'create', ...factsOf(stored, origin), before: undefined, after: stored }];
      },
      duplicateRoute,
    );
    return freeze(created!.after!);
  }

  async update(workspace: string, id: string, update: RouteRecordUpdate, origin?: RouteWriteOrigin): Promise<RouteRecord | undefined> {
    const [updated] = await this.#write(
      workspace,
      async (trx, revision) => {
        const current = await this.#current(trx, workspace, id);
        if (current === undefined) return undefined;
        const stored: RouteRecord = { ...current, ...update, revision };
        const { id: _id, workspace: _workspace, created_at: _created, ...columns } = toRow(stored);
        await trx.updateTable('routes').set(columns).where('id', '=', id).execute();
        return [{ kind: 'update', ...factsOf(stored, origin), before: current, after: stored }];
      },
      duplicateRoute,
    );
    return updated && freeze(updated.after!);
  }

  async delete(workspace: string, id: string, origin?: RouteWriteOrigin): Promise<{ readonly revision: number } | undefined> {
    const [deleted] = await this.#write(workspace, async (trx, revision) => {
      const current = await this.#current(trx, workspace, id);
      if (current === undefined) return undefined;
      await trx.deleteFrom('routes').where('id', '=', id).execute();
      const facts = { ...factsOf(current, origin), revision, time: new Date(origin?.time ?? 0) };
      return [{ kind: 'delete', ...facts, before: current, after: undefined }];
    });
    return deleted && { revision: deleted.revision };
  }

  /** Every write of a revision in one transaction, many rows per statement: a 5,000-route apply is a few dozen statements, not 10,000. */
  async applyRevision(write: RouteRevisionWrite): Promise<RouteRevisionWritten> {
    const { workspace, expectedRevision } = write;
    if (write.delete.length + write.update.length + write.create.length === 0) {
      const current = await this.revision(workspace);
      if (expectedRevision !== undefined && expectedRevision !== current) throw revisionRefusals.stale(expectedRevision, current);
      return { revision: current, changes: [] };
    }
    const changes = await this.#write(
      workspace,
      async (trx, revision) => {
        // The raised row is locked until commit: revision - 1 is the table this transaction changes, so the check cannot race.
        if (expectedRevision !== undefined && expectedRevision !== revision - 1)
          throw revisionRefusals.stale(expectedRevision, revision - 1);
        const before = await this.#named(trx, workspace, [...write.delete, ...write.update.map(({ id }) => id)]);
        for (const ids of chunks(write.delete))
          await trx.deleteFrom('routes').where('workspace', '=', workspace).where('id', 'in', ids).execute();
        const updated = [];
        for (const { id, update } of write.update) {
          const stored = storedRecord(before.get(id)!, update, revision);
          const { id: _id, workspace: _workspace, created_at: _created, ...columns } = toRow(stored);
          await trx.updateTable('routes').set(columns).where('id', '=', id).execute();
          updated.push(stored);
        }
        const created = write.create.map((record) => storedRecord(record, record, revision));
        for (const records of chunks(created))
          await this.#insertRoutes(
            trx,
            records.map((record) => valuesOf(ROUTE_COLUMNS, toRow(record))),
          );
        // Literals, not spreads of factsOf: V8 copies a spread with added properties slowly (route-apply-5000).
        const time = new Date(write.origin?.time ?? 0);
        const actor = write.origin?.actor ?? '';
        const changes: RouteChange[] = [];
        for (const id of write.delete) {
          const gone = before.get(id)!;
          const at = write.origin ? time : gone.updatedAt;
          changes.push({ revision, id, time: at, actor, owner: gone.owner, kind: 'delete', before: gone, after: undefined });
        }
        for (const after of updated) {
          const at = write.origin ? time : after.updatedAt;
          changes.push({
            revision,
            id: after.id,
            time: at,
            actor,
            owner: after.owner,
            kind: 'update',
            before: before.get(after.id)!,
            after,
          });
        }
        for (const after of created) {
          const at = write.origin ? time : after.updatedAt;
          changes.push({ revision, id: after.id, time: at, actor, owner: after.owner, kind: 'create', before: undefined, after });
        }
        return changes;
      },
      duplicateRoute,
    );
    return { revision: changes[0]!.revision, changes: changes.map(frozenChange) };
  }

  async get(workspace: string, id: string): Promise<RouteRecord | undefined> {
    try {
      const row = await this.#db
        .selectFrom('routes')
        .select(COLUMNS)
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .executeTakeFirst();
      return row && freeze(toRecord(row));
    } catch (error) {
      throw databaseError(error);
    }
  }

  async list(workspace: string): Promise<RouteRecord[]> {
    try {
      return (await this.#listed(this.#db, workspace)).map((row) => freeze(toRecord(row)));
    } catch (error) {
      throw databaseError(error);
    }
  }

  /** A keyset query on (workspace, created_at, id), served by the index of the same columns. */
  async page(workspace: string, after: RouteCursor | undefined, limit: number): Promise<RouteRecord[]> {
    try {
      let select = this.#db.selectFrom('routes').select(COLUMNS).where('workspace', '=', workspace);
      if (after !== undefined) {
        const at = after.createdAt.getTime();
        select = select.where((eb) => eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', after.id)])]));
      }
      const rows = await select.orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows.map((row) => freeze(toRecord(row)));
    } catch (error) {
      throw databaseError(error);
    }
  }

  async count(workspace: string): Promise<number> {
    try {
      const row = await this.#db
        .selectFrom('routes')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('workspace', '=', workspace)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async revision(workspace: string): Promise<number> {
    try {
      return await this.#revisionIn(this.#db, workspace);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async snapshot(workspace: string): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    try {
      // One transaction, so the records are exactly the table at the revision read with them.
      return await this.#db.transaction().execute(async (trx) => {
        const revision = await this.#revisionIn(trx, workspace);
        const rows = await this.#listed(trx, workspace);
        return { revision, records: rows.map((row) => freeze(toRecord(row))) };
      });
    } catch (error) {
      throw databaseError(error);
    }
  }

  /**
   * The owner's routes and those at the scope's keys, in one transaction with
   * the revision: one query by owner and one by shape hash per
   * ROWS_PER_STATEMENT keys (on the unique key, with the keys' methods), so an
   * apply reads neither every other owner's routes nor their rows' text.
   */
  async scopedSnapshot(workspace: string, scope: RouteScope): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const revision = await this.#revisionIn(trx, workspace);
        const found = new Map<string, RouteRecord>();
        const owned = await ownedRoutesQuery(trx, workspace, scope.owner).execute();
        for (const row of owned) found.set(row.id, toRecord(row));
        const wanted = new Set(scope.keys.map(({ method, shape }) => `${method} ${shape}`));
        const methods = [...new Set(scope.keys.map(({ method }) => method))];
        const hashes = [...new Set(scope.keys.map(({ shape }) => shapeHash(shape)))];
        for (const chunk of chunks(hashes)) {
          const rows = await trx
            .selectFrom('routes')
            .select(COLUMNS)
            .where('workspace', '=', workspace)
            .where('method', 'in', methods)
            .where('shape_hash', 'in', chunk)
            .execute();
          // A hash names a shape, but only the method and shape together are a desired route's.
          for (const row of rows) if (!found.has(row.id) && wanted.has(`${row.method} ${row.shape}`)) found.set(row.id, toRecord(row));
        }
        return { revision, records: [...found.values()] };
      });
    } catch (error) {
      throw databaseError(error);
    }
  }

  async changesSince(workspace: string, revision: number, limit: number): Promise<RouteChange[] | undefined> {
    try {
      const current = await this.#revisionIn(this.#db, workspace);
      if (revision > current || revision < 0) return undefined;
      if (revision === current) return [];
      // The log may still hold older changes (it is trimmed every TRIM_EVERY writes); the history is the last `history`.
      if (revision < current - this.#history) return undefined;
      const rows = await this.#db
        .selectFrom('route_changes')
        .selectAll()
        .where('workspace', '=', workspace)
        .where('revision', '>', revision)
        .orderBy('revision')
        .orderBy('seq')
        // One more than asked: whether the cut falls inside a revision shows (wholeRevisions).
        .limit(limit + 1)
        .execute();
      // Revisions are gap-free: a missing first one was trimmed away.
      if (rows.length === 0 || Number(rows[0]!.revision) !== revision + 1) return undefined;
      // The first revision alone holds more than `limit` (an apply): every row read is of it, the rest follows them.
      const whole = wholeRevisions(rows, limit) ?? [...rows, ...(await this.#changesAt(workspace, revision + 1, Number(rows.at(-1)!.seq)))];
      return whole.map(toChange);
    } catch (error) {
      throw databaseError(error);
    }
  }

  /** The changes of one revision after its `afterSeq`th, in order. */
  #changesAt(workspace: string, revision: number, afterSeq: number): Promise<Selectable<RouteChangesTable>[]> {
    return this.#db
      .selectFrom('route_changes')
      .selectAll()
      .where('workspace', '=', workspace)
      .where('revision', '=', revision)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .execute();
  }

  /** The routes a revision deletes or updates, as the transaction sees them; `aborted` when one is gone or named twice. */
  async #named(trx: Transaction<Database>, workspace: string, ids: readonly string[]): Promise<Map<string, RouteRecord>> {
    const found = new Map<string, RouteRecord>();
    for (const chunk of chunks(ids)) {
      const rows = await trx.selectFrom('routes').select(COLUMNS).where('workspace', '=', workspace).where('id', 'in', chunk).execute();
      for (const row of rows) found.set(row.id, toRecord(row));
    }
    const once = new Set<string>();
    for (const id of ids) {
      if (!found.has(id) || once.has(id)) throw revisionRefusals.missing(id);
      once.add(id);
    }
    return found;
  }

  /** The route as the transaction sees it, for the `before` of a change. */
  async #current(trx: Transaction<Database>, workspace: string, id: string): Promise<RouteRecord | undefined> {
    const row = await trx.selectFrom('routes').select(COLUMNS).where('id', '=', id).where('workspace', '=', workspace).executeTakeFirst();
    return row && toRecord(row);
  }

  #listed(db: Kysely<Database>, workspace: string): Promise<RouteRow[]> {
    return db.selectFrom('routes').select(COLUMNS).where('workspace', '=', workspace).orderBy('created_at').orderBy('id').execute();
  }

  async #revisionIn(db: Kysely<Database>, workspace: string): Promise<number> {
    const [row] = (await this.#selectRevision(db, workspace)).rows;
    return row === undefined ? 0 : Number(row.revision);
  }

  /**
   * One revision: raise the revision, run `work` at it, log the changes it
   * made (in its order), trim the log (every TRIM_EVERY revisions). `work`
   * answering `undefined` (its target is gone) rolls everything back, the
   * revision included, and answers no changes.
   */
  async #write(
    workspace: string,
    work: (trx: Transaction<Database>, revision: number) => Promise<RouteChange[] | undefined>,
    duplicate?: (error: unknown) => SwitchyardError,
  ): Promise<RouteChange[]> {
    try {
      /** Whether the committed write made webhook deliveries due: the relay is woken only after the commit. */
      let due = false;
      const written = await retryingDeadlocks(() =>
        this.#db.transaction().execute(async (trx) => {
          const revision = await this.#raise(trx, workspace);
          const changes = await work(trx, revision);
          if (changes === undefined) throw new NothingToWrite();
          const rows = changes.map((change, seq) => changeRow(workspace, seq, change));
          if (rows.length === 1) await this.#insertChange(trx, ...CHANGE_COLUMNS.map((column) => rows[0]![column]));
          else
            for (const chunk of chunks(rows))
              await this.#insertChanges(
                trx,
                chunk.map((row) => valuesOf(CHANGE_COLUMNS, row)),
              );
          if (this.#outbox)
            due = await this.#outbox.enqueue(trx, workspace, () => changes.map((change) => routeChangeEvent(workspace, change)));
          if (revision > this.#history && revision % TRIM_EVERY === 0) await this.#trimChanges(trx, workspace, revision - this.#history);
          return changes;
        }),
      );
      if (due) this.#outbox?.committed();
      return written;
    } catch (error) {
      if (error instanceof NothingToWrite) return [];
      throw databaseError(error, duplicate && (() => duplicate(error)));
    }
  }

  async #raise(trx: Transaction<Database>, workspace: string): Promise<number> {
    const result = await this.#raiseRevision(trx, workspace);
    if (!this.#mysql) return Number((result.rows as { revision: number }[])[0]!.revision);
    // One row affected: the workspace's first write, inserted at 1. Two: an existing row raised (mysql2 counts
    // found rows, and the value always changes), its new revision in the insert id.
    if (result.numAffectedRows === 1n) return 1;
    if (result.numAffectedRows !== 2n || result.insertId === undefined)
      throw new Error(`raising the route revision answered ${result.numAffectedRows} rows, insert id ${result.insertId}`);
    return Number(result.insertId);
  }
}

/** `items` in runs of ROWS_PER_STATEMENT. */
function chunks<T>(items: readonly T[]): T[][] {
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) runs.push(items.slice(start, start + ROWS_PER_STATEMENT));
  return runs;
}

/** A row's values in the order of `columns`. */
function valuesOf<Row>(columns: readonly (keyof Row)[], row: Row): unknown[] {
  return columns.map((column) => row[column]);
}

/** An object of `columns` from values in the same order. */
function rowOf<const C extends readonly string[]>(columns: C, values: readonly unknown[]): Record<C[number], never> {
  return Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Record<C[number], never>;
}

/** Both dialects name the violated key in the message: the shape key's name and column both say "shape". */
function duplicateRoute(error: unknown): SwitchyardError {
  if (error instanceof Error && !/shape/.test(error.message))
    return new SwitchyardError('already_exists', 'route id already exists', [], { cause: error });
  return new SwitchyardError(
    'already_exists',
    'a route with this method and path shape already exists in the workspace',
    [{ field: 'path', reason: 'duplicate method and path shape' }],
    { cause: error },
  );
}
