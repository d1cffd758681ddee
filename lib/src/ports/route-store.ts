/** A stored route, as the route store keeps it. */
export interface RouteRecord {
  readonly id: string;
  readonly workspace: string;
  /** Upper-case method. */
  readonly method: string;
  /** The pattern as the caller wrote it (validated). */
  readonly path: string;
  /**
   * The pattern with parameter names erased (`/users/:` for `/users/:id`):
   * two routes of one workspace with the same method and shape are duplicates.
   */
  readonly shape: string;
  readonly middleware: readonly string[];
  readonly handler: string;
  /** The team or tool that manages the route (`""`: none); an apply with an owner plans only that owner's routes. */
  readonly owner: string;
  readonly createdAt: Date;
  /** Time of the latest update (`createdAt` until the first one). */
  readonly updatedAt: Date;
  /** The workspace's route-table revision this record was last written at. */
  readonly revision: number;
}

/** A record to insert: the store gives it its revision. */
export type NewRouteRecord = Omit<RouteRecord, 'revision'>;

/** What an update writes: the route's new definition and time. */
export type RouteRecordUpdate = Pick<RouteRecord, 'method' | 'path' | 'shape' | 'middleware' | 'handler' | 'owner' | 'updatedAt'>;

/** Who made a write and when: the change log keeps both beside each change. */
export interface RouteWriteOrigin {
  /** The caller (a token's `sub`); `""` when unknown. */
  readonly actor: string;
  readonly time: Date;
}

interface RouteChangeFacts {
  /** The revision the change belongs to; one revision may hold several changes (an apply). */
  readonly revision: number;
  /** The route changed. */
  readonly id: string;
  readonly time: Date;
  readonly actor: string;
  /** The owner of the route changed (an apply only ever changes its own owner's routes). */
  readonly owner: string;
}

/**
 * One entry of a workspace's change log: the table as of `revision` differs
 * from the one before by this and the other changes of the same revision.
 * `before` is missing only for changes logged before the log kept it (the
 * route's earlier write was no longer in the log when 0009 migrated it).
 */
export type RouteChange = RouteChangeFacts &
  (
    | { readonly kind: 'create'; readonly before: undefined; readonly after: RouteRecord }
    | { readonly kind: 'update'; readonly before: RouteRecord | undefined; readonly after: RouteRecord }
    | { readonly kind: 'delete'; readonly before: RouteRecord | undefined; readonly after: undefined }
  );

/**
 * Several writes made as one revision (an apply). They run as one: deletes
 * first, then updates, then creates, so a method and shape can move from a
 * deleted route to a created one, and the change log lists them in that order.
 */
export interface RouteRevisionWrite {
  readonly workspace: string;
  readonly delete: readonly string[];
  readonly update: readonly { readonly id: string; readonly update: RouteRecordUpdate }[];
  readonly create: readonly NewRouteRecord[];
  /** Written only when the workspace is at this revision, else `aborted` (compare-and-swap). */
  readonly expectedRevision?: number | undefined;
  readonly origin: RouteWriteOrigin;
}

/** What an applied revision wrote: its revision (the current one when nothing was to be written) and its changes in order. */
export interface RouteRevisionWritten {
  readonly revision: number;
  readonly changes: readonly RouteChange[];
}

/** What an apply of one owner plans against (`RouteStore.scopedSnapshot`). */
export interface RouteScope {
  /** `""`: the routes without an owner. */
  readonly owner: string;
  /** The method and shape of every desired route. */
  readonly keys: readonly { readonly method: string; readonly shape: string }[];
}

/** Where a page of `page` starts: after this record (oldest-first order is createdAt, then id). */
export interface RouteCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/**
 * Persistence for route records, with a per-workspace revision and change log.
 *
 * Contract (checked by `routeStoreConformance` in `switchyard/testing`):
 * - Every successful `insert`, `update` and `delete` raises the workspace's
 *   revision by exactly one and appends one change with that revision, in the
 *   same transaction as the write: a change that was rolled back is never in
 *   the log, one that was committed always is, and revisions are gap-free in
 *   commit order. A refused write (duplicate, unknown id) changes nothing.
 *   A change records the route before and after, the route's owner, and the
 *   `origin`'s actor and time. Without an origin the actor is `""` and the
 *   time the written record's `updatedAt` (a delete's time is then unknown:
 *   the epoch, as for deletes logged before 0009).
 * - `insert` stores a record and returns it with its revision, or throws
 *   `SwitchyardError('already_exists')` when the workspace already has one with
 *   the same method and shape; concurrent inserts of a duplicate yield exactly
 *   one success.
 * - `update` replaces the definition of a record of the workspace (same
 *   duplicate rule, ignoring the record itself) and returns it as written;
 *   `undefined` for an unknown id or another workspace's.
 * - `delete` removes a record of the workspace and returns the revision of the
 *   deletion; `undefined` for an unknown id or another workspace's.
 * - `applyRevision` makes every write it is given as one revision, in one
 *   transaction with its change-log rows, or none of them: a duplicate method
 *   and shape is `already_exists`; an id to update or delete that the
 *   workspace does not hold, or one named twice, is `aborted` (the plan was
 *   made against another table); an `expectedRevision` that is not the
 *   workspace's revision is `aborted` with the detail
 *   `{ field: 'expectedRevision', reason: 'the route table is at revision N' }`.
 *   Nothing to write makes no revision (after the same check). A created or
 *   updated record carries the new revision.
 * - `get` returns the record only within its own workspace, else `undefined`.
 * - `list` returns every record of a workspace, oldest first (createdAt, id);
 *   `page` the next `limit` of them after a cursor.
 * - `revision` is the workspace's current revision (0 before its first write).
 * - `snapshot` reads the records and the revision they are the table of, consistently.
 * - `scopedSnapshot` (optional) reads, as consistently, only what an apply of
 *   `scope.owner` plans against: every record of the owner and every record
 *   at one of `scope.keys` (method and shape), whoever owns it, in no
 *   particular order. A store without it gives an apply its whole table.
 * - `changesSince(workspace, revision, limit)` returns the changes after
 *   `revision` in order (revision, then their order inside it), whole
 *   revisions only: at most `limit` changes unless the first revision alone
 *   holds more, which then comes whole. `undefined` when the log no longer
 *   holds all of them (the store keeps the last `history` revisions), or
 *   when `revision` is ahead of the workspace's.
 * - `count` is the number of records of the workspace.
 * - Times round-trip with millisecond precision.
 * - Infrastructure failures throw `SwitchyardError('unavailable')`.
 */
export interface RouteStore {
  insert(record: NewRouteRecord, origin?: RouteWriteOrigin): Promise<RouteRecord>;
  update(workspace: string, id: string, update: RouteRecordUpdate, origin?: RouteWriteOrigin): Promise<RouteRecord | undefined>;
  delete(workspace: string, id: string, origin?: RouteWriteOrigin): Promise<{ readonly revision: number } | undefined>;
  applyRevision(write: RouteRevisionWrite): Promise<RouteRevisionWritten>;
  get(workspace: string, id: string): Promise<RouteRecord | undefined>;
  list(workspace: string): Promise<RouteRecord[]>;
  page(workspace: string, after: RouteCursor | undefined, limit: number): Promise<RouteRecord[]>;
  count(workspace: string): Promise<number>;
  revision(workspace: string): Promise<number>;
  snapshot(workspace: string): Promise<{ readonly revision: number; readonly records: RouteRecord[] }>;
  scopedSnapshot?(workspace: string, scope: RouteScope): Promise<{ readonly revision: number; readonly records: RouteRecord[] }>;
  changesSince(workspace: string, revision: number, limit: number): Promise<RouteChange[] | undefined>;
}
