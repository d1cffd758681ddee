import type { Principal } from '../auth/principal.js';

/** A route as callers see it. */
export interface Route {
  readonly id: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  readonly path: string;
  readonly middleware: readonly string[];
  readonly handler: string;
  /** The team or tool that manages the route; `""` when none. */
  readonly owner: string;
  readonly createdAt: Date;
  /** Time of the latest update (`createdAt` until the first one). */
  readonly updatedAt: Date;
  /** The workspace's route-table revision this route was last written at. */
  readonly revision: number;
}

export interface CreateRouteInput {
  /** Case-insensitive; stored upper-case. */
  readonly method: string;
  readonly path: string;
  readonly middleware?: readonly string[] | undefined;
  readonly handler: string;
  /** Missing: no owner (`""`). */
  readonly owner?: string | undefined;
}

export interface MatchRouteInput {
  readonly method: string;
  /** A concrete request path such as `/users/42`. */
  readonly path: string;
}

export interface RouteMatch {
  readonly route: Route;
  /** Decoded values of the route's parameters; `*` holds a wildcard's rest. */
  readonly params: Readonly<Record<string, string>>;
}

/** Any of a route's fields; absent ones stay. */
export interface UpdateRouteInput {
  readonly method?: string | undefined;
  readonly path?: string | undefined;
  readonly middleware?: readonly string[] | undefined;
  readonly handler?: string | undefined;
  /** `""` removes the owner. */
  readonly owner?: string | undefined;
}

export interface RouteListInput {
  /** 1-1000; 0 or unset: 50. */
  readonly pageSize?: number | undefined;
  readonly pageToken?: string | undefined;
  /** The table as it was at this revision (rebuilt from the kept change log); unset: as it is. */
  readonly atRevision?: number | undefined;
}

export interface RoutePage {
  readonly routes: readonly Route[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

/**
 * What a watch of a workspace's route table yields. A revision may hold
 * several changes (an apply, a rollback): each of them but the last carries
 * `moreInRevision: true`, so a follower applies the revision whole, at the
 * change without it. A snapshot is `reset`,
 * one `upsert` per route, then `synced`, all at the snapshot's revision;
 * changes follow, each at the revision it brings the table to. `heartbeat`
 * says the watch is alive while nothing changes.
 */
export type RouteEvent =
  | { readonly type: 'reset'; readonly revision: number }
  | { readonly type: 'upsert'; readonly revision: number; readonly route: Route; readonly moreInRevision?: boolean | undefined }
  | { readonly type: 'delete'; readonly revision: number; readonly id: string; readonly moreInRevision?: boolean | undefined }
  | { readonly type: 'synced'; readonly revision: number }
  | { readonly type: 'heartbeat'; readonly revision: number };

export interface WatchRoutesOptions {
  /** 0 (default): a snapshot first. Else only the changes after it, or a snapshot when they are no longer kept. */
  readonly sinceRevision?: number | undefined;
  /** Ends the watch. */
  readonly signal?: AbortSignal | undefined;
}

/** A whole route table to hold (routes as code); see `RouteService.apply`. Fields are checked as untrusted input. */
export interface ApplyRoutesInput {
  /** The desired routes, as for create; an entry's `owner` may be left out (it is the apply's). */
  readonly routes: readonly CreateRouteInput[];
  /** Whose routes the apply manages; missing or `""`: the routes without an owner. */
  readonly owner?: string | undefined;
  /** Delete the owner's routes that `routes` no longer names (without it, an apply never deletes). */
  readonly prune?: boolean | undefined;
  /** Apply only while the table is at this revision, else `aborted` (compare-and-swap). */
  readonly expectedRevision?: number | undefined;
  /** Plan only: nothing is written. */
  readonly dryRun?: boolean | undefined;
}

export interface RouteUpdate {
  readonly before: Route;
  readonly after: Route;
}

/**
 * What an apply did (or, for a dry run, would do). `revision` is the
 * revision it wrote; with nothing to change, or for a dry run, the revision
 * the plan was made against. A dry run's created routes have no id (`""`).
 */
export interface ApplyRoutesResult {
  readonly revision: number;
  readonly created: readonly Route[];
  readonly updated: readonly RouteUpdate[];
  readonly deleted: readonly Route[];
  /** Desired routes that already were as desired. */
  readonly unchanged: number;
}

/** One entry of the change log, as callers see it. */
export interface RouteChangeEntry {
  /** The revision the change belongs to (one revision may hold several). */
  readonly revision: number;
  readonly time: Date;
  /** Who made it (a token's `sub`); `""` when unknown. */
  readonly actor: string;
  /** The owner of the route changed. */
  readonly owner: string;
  readonly kind: 'create' | 'update' | 'delete';
  /** The route before the change: none for a create (nor for changes logged before the log kept it). */
  readonly before: Route | undefined;
  /** The route after the change: none for a delete. */
  readonly after: Route | undefined;
}

export interface RouteChangeListInput {
  /** The changes after this revision (0, the default: from the oldest kept). */
  readonly sinceRevision?: number | undefined;
  /** 1-1000; 0 or unset: 50. A revision is never split: a page may hold more when one revision does. */
  readonly pageSize?: number | undefined;
  readonly pageToken?: string | undefined;
}

export interface RouteChangePage {
  readonly changes: readonly RouteChangeEntry[];
  /** Empty once the page reaches the current revision. */
  readonly nextPageToken: string;
}

/** Make the table what it was at `revision`, as a new revision. */
export interface RollbackRoutesInput {
  readonly revision: number;
  /** Only while the table is at this revision, else `aborted`. */
  readonly expectedRevision?: number | undefined;
  /** Plan only: nothing is written. */
  readonly dryRun?: boolean | undefined;
}

/** Route operations; each checks the principal's scope and workspace. */
export interface RouteService {
  create(principal: Principal, input: CreateRouteInput): Promise<Route>;
  get(principal: Principal, id: string): Promise<Route>;
  match(principal: Principal, input: MatchRouteInput): Promise<RouteMatch>;
  /** A page of the workspace's routes, oldest first. */
  list(principal: Principal, input: RouteListInput): Promise<RoutePage>;
  /** Changes any of a route's fields, with create's validation and duplicate rule. */
  update(principal: Principal, id: string, input: UpdateRouteInput): Promise<Route>;
  delete(principal: Principal, id: string): Promise<void>;
  /**
   * Makes the owner's routes the desired table in one revision, or changes
   * nothing: every entry is validated first (`invalid_argument` naming each
   * bad one by index), another owner's method and shape is `already_exists`,
   * a stale `expectedRevision` is `aborted`. Applying the same table again
   * makes no revision.
   */
  apply(principal: Principal, input: ApplyRoutesInput): Promise<ApplyRoutesResult>;
  /** The change log after a revision, oldest first; `invalid_argument` before the kept history. */
  changes(principal: Principal, input: RouteChangeListInput): Promise<RouteChangePage>;
  /**
   * One new revision whose table equals the one at `input.revision` (every
   * owner's routes), planned and written as an apply is; the same result.
   */
  rollback(principal: Principal, input: RollbackRoutesInput): Promise<ApplyRoutesResult>;
  /** The workspace's route table as a stream of events (see RouteEvent), until `signal` aborts. */
  watch(principal: Principal, options?: WatchRoutesOptions): AsyncIterable<RouteEvent>;
}
