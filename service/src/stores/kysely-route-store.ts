import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { SwitchyardError, type RouteRecord, type RouteStore } from '@switchyard/core';
import { databaseError } from './database-errors.js';
import type { Database, RoutesTable } from './schema.js';

const COLUMNS = ['id', 'workspace', 'method', 'path', 'shape', 'middleware', 'handler', 'created_at'] as const;
type RouteRow = Pick<Selectable<RoutesTable>, (typeof COLUMNS)[number]>;

/** RouteStore on MySQL or SQLite; the unique key (workspace, method, shape hash) decides duplicates, even across instances. */
export class KyselyRouteStore implements RouteStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(record: RouteRecord): Promise<void> {
    try {
      await this.#db
        .insertInto('routes')
        .values({
          id: record.id,
          workspace: record.workspace,
          method: record.method,
          path: record.path,
          shape: record.shape,
          shape_hash: createHash('sha256').update(record.shape).digest('hex'),
          middleware: JSON.stringify(record.middleware),
          handler: record.handler,
          created_at: record.createdAt.getTime(),
        })
        .execute();
    } catch (error) {
      throw databaseError(error, () => duplicateRoute(error));
    }
  }

  async get(workspace: string, id: string): Promise<RouteRecord | undefined> {
    try {
      const row = await this.#db.selectFrom('routes').select(COLUMNS).where('id', '=', id).where('workspace', '=', workspace).executeTakeFirst();
      return row && toRecord(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async list(workspace: string): Promise<RouteRecord[]> {
    try {
      const rows = await this.#db.selectFrom('routes').select(COLUMNS).where('workspace', '=', workspace).orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
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
}

/** Both dialects name the violated key in the message: the shape key's name and column both say "shape". */
function duplicateRoute(error: unknown): SwitchyardError {
  if (error instanceof Error && !/shape/.test(error.message)) return new SwitchyardError('already_exists', 'route id already exists', [], { cause: error });
  return new SwitchyardError('already_exists', 'a route with this method and path shape already exists in the workspace', [
    { field: 'path', reason: 'duplicate method and path shape' },
  ], { cause: error });
}

function toRecord(row: RouteRow): RouteRecord {
  return Object.freeze({
    id: row.id,
    workspace: row.workspace,
    method: row.method,
    path: row.path,
    shape: row.shape,
    middleware: Object.freeze(parseMiddleware(row.middleware)),
    handler: row.handler,
    createdAt: new Date(Number(row.created_at)),
  });
}

function parseMiddleware(text: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new SwitchyardError('internal', 'stored route middleware is not a list of names');
  }
  return value;
}
