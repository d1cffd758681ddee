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
}

export interface RoutePage {
  readonly routes: readonly Route[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

/**
 * What a watch of a workspace's route table yields. A snapshot is `reset`,
 * one `upsert` per route, then `synced`, all at the snapshot's revision;
 * changes follow, each at the revision it brings the table to. `heartbeat`
 * says the watch is alive while nothing changes.
 */
export type RouteEvent =
  | { readonly type: 'reset'; readonly revision: number }
  | { readonly type: 'upsert'; readonly revision: number; readonly route: Route }
  | { readonly type: 'delete'; readonly revision: number; readonly id: string }
  | { readonly type: 'synced'; readonly revision: number }
  | { readonly type: 'heartbeat'; readonly revision: number };

export interface WatchRoutesOptions {
  /** 0 (default): a snapshot first. Else only the changes after it, or a snapshot when they are no longer kept. */
  readonly sinceRevision?: number | undefined;
  /** Ends the watch. */
  readonly signal?: AbortSignal | undefined;
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
  /** The workspace's route table as a stream of events (see RouteEvent), until `signal` aborts. */
  watch(principal: Principal, options?: WatchRoutesOptions): AsyncIterable<RouteEvent>;
}
