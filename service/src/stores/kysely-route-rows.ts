import type { Selectable } from 'kysely';
import {
  SwitchyardError,
  sha256Hex,
  type RouteChange,
  type RouteRecord,
  type RouteRecordUpdate,
  type RouteWriteOrigin,
} from '@switchyard/core';
import type { RouteChangesTable, RoutesTable } from './schema.js';

// Routes and their changes as rows of `routes` and `route_changes`, and back.

/** The columns a route is read from. */
export const COLUMNS = [
  'id',
  'workspace',
  'method',
  'path',
  'shape',
  'middleware',
  'handler',
  'owner',
  'created_at',
  'updated_at',
  'revision',
] as const;
export type RouteRow = Pick<Selectable<RoutesTable>, (typeof COLUMNS)[number]>;

/**
 * A change as callers get it: its records frozen, as every record this store
 * answers. The change itself is one the store just made, frozen where it is
 * when its records already are (a created route's is).
 */
export function frozenChange(change: RouteChange): RouteChange {
  const before = change.before && freeze(change.before);
  if (before === change.before && (change.after === undefined || freeze(change.after) === change.after)) return Object.freeze(change);
  const { revision, id, time, actor, owner } = change;
  if (change.kind === 'delete') return Object.freeze({ revision, id, time, actor, owner, kind: 'delete', before, after: undefined });
  const after = freeze(change.after);
  if (change.kind === 'create') return Object.freeze({ revision, id, time, actor, owner, kind: 'create', before: undefined, after });
  return Object.freeze({ revision, id, time, actor, owner, kind: 'update', before, after });
}

export function toRow(record: RouteRecord): RoutesTable {
  return {
    id: record.id,
    workspace: record.workspace,
    method: record.method,
    path: record.path,
    shape: record.shape,
    shape_hash: shapeHash(record.shape),
    middleware: JSON.stringify(record.middleware),
    handler: record.handler,
    owner: record.owner,
    created_at: record.createdAt.getTime(),
    updated_at: record.updatedAt.getTime(),
    revision: record.revision,
  };
}

/** The column the unique key of method and shape uses: the shape's SHA-256, hex (a shape may be longer than an index allows). */
export function shapeHash(shape: string): string {
  return sha256Hex(shape);
}

/** The facts a change records of a write of `record`: its revision, owner, and who wrote it when. */
export function factsOf(record: RouteRecord, origin: RouteWriteOrigin | undefined) {
  return {
    revision: record.revision,
    id: record.id,
    time: new Date(origin?.time ?? record.updatedAt),
    actor: origin?.actor ?? '',
    owner: record.owner,
  };
}

export function changeRow(workspace: string, seq: number, change: RouteChange): RouteChangesTable {
  return {
    workspace,
    revision: change.revision,
    seq,
    kind: change.kind,
    route_id: change.id,
    before_record: change.before ? loggedRow(change.before) : null,
    after_record: change.after ? loggedRow(change.after) : null,
    changed_at: change.time.getTime(),
    actor: change.actor,
    owner: change.owner,
  };
}

/** A record as the change log keeps it: its row, as JSON, without the hash (derived from the shape, so not computed here). */
function loggedRow(record: RouteRecord): string {
  const row: Omit<RoutesTable, 'shape_hash'> = {
    id: record.id,
    workspace: record.workspace,
    method: record.method,
    path: record.path,
    shape: record.shape,
    middleware: JSON.stringify(record.middleware),
    handler: record.handler,
    owner: record.owner,
    created_at: record.createdAt.getTime(),
    updated_at: record.updatedAt.getTime(),
    revision: record.revision,
  };
  return JSON.stringify(row);
}

/**
 * A change-log row as a change. Literals throughout, not spreads: V8 copies
 * a spread with added properties slowly, and a watcher catching up reads a
 * 5,000-route revision at once (route-apply-5000: 30 to 6 ms for 5,000).
 */
export function toChange(row: Selectable<RouteChangesTable>): RouteChange {
  const revision = Number(row.revision);
  const time = new Date(Number(row.changed_at));
  const before = row.before_record === null ? undefined : loggedRecord(row.before_record);
  if (row.kind === 'delete')
    return { revision, id: row.route_id, time, actor: row.actor, owner: row.owner, kind: 'delete', before, after: undefined };
  const after = loggedRecord(row.after_record ?? 'null');
  return row.kind === 'create'
    ? { revision, id: row.route_id, time, actor: row.actor, owner: row.owner, kind: 'create', before: undefined, after }
    : { revision, id: row.route_id, time, actor: row.actor, owner: row.owner, kind: 'update', before, after };
}

/** A logged row back as a record (frozen, as toRecord makes it); rows logged before 0009 have no owner. */
function loggedRecord(json: string): RouteRecord {
  const row = JSON.parse(json) as (Omit<RouteRow, 'owner'> & { owner?: string }) | null;
  if (row === null) throw new SwitchyardError('internal', 'a logged route change has no record');
  if (row.owner === undefined) (row as { owner?: string }).owner = '';
  return toRecord(row as RouteRow);
}

/** A row as a record, frozen as made (freeze then keeps it, not copying a record no one else holds). */
export function toRecord(row: RouteRow): RouteRecord {
  return Object.freeze({
    id: row.id,
    workspace: row.workspace,
    method: row.method,
    path: row.path,
    shape: row.shape,
    middleware: Object.freeze(parseMiddleware(row.middleware)),
    handler: row.handler,
    owner: row.owner,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    revision: Number(row.revision),
  });
}

/** The record, frozen: a copy, unless it already is (a revision's records pass here more than once). */
export function freeze(record: RouteRecord): RouteRecord {
  if (Object.isFrozen(record) && Object.isFrozen(record.middleware)) return record;
  return storedRecord(record, record, record.revision);
}

/**
 * A frozen record of `record`'s identity with `definition`'s fields at
 * `revision`: a created route as stored, or an updated one. A literal, not
 * spreads: V8 copies a spread with added properties slowly, and an apply
 * writes up to 10,000 (route-apply-5000).
 */
export function storedRecord(
  record: Pick<RouteRecord, 'id' | 'workspace' | 'createdAt'>,
  definition: RouteRecordUpdate,
  revision: number,
): RouteRecord {
  return Object.freeze({
    id: record.id,
    workspace: record.workspace,
    method: definition.method,
    path: definition.path,
    shape: definition.shape,
    middleware: Object.isFrozen(definition.middleware) ? definition.middleware : Object.freeze([...definition.middleware]),
    handler: definition.handler,
    owner: definition.owner,
    createdAt: record.createdAt,
    updatedAt: definition.updatedAt,
    revision,
  });
}

function parseMiddleware(text: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new SwitchyardError('internal', 'stored route middleware is not a list of names');
  }
  return value;
}
