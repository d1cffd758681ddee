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
  readonly createdAt: Date;
}

/**
 * Persistence for route records.
 *
 * Contract (checked by `routeStoreConformance` in `switchyard/testing`):
 * - `insert` stores a record or throws `SwitchyardError('already_exists')` when
 *   the workspace already has one with the same method and shape; concurrent
 *   inserts of a duplicate yield exactly one success.
 * - `get` returns the record only within its own workspace, else `undefined`.
 * - `list` returns every record of a workspace, oldest first.
 * - `count` is cheap; routes are never deleted, so it changes exactly when a
 *   route is added, which makes it a cache version for compiled matchers.
 * - Times round-trip with millisecond precision.
 * - Infrastructure failures throw `SwitchyardError('unavailable')`.
 */
export interface RouteStore {
  insert(record: RouteRecord): Promise<void>;
  get(workspace: string, id: string): Promise<RouteRecord | undefined>;
  list(workspace: string): Promise<RouteRecord[]>;
  count(workspace: string): Promise<number>;
}
