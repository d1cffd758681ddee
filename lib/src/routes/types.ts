import type { Principal } from '../auth/principal.js';

/** A route as callers see it. */
export interface Route {
  readonly id: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  readonly path: string;
  readonly middleware: readonly string[];
  readonly handler: string;
  readonly createdAt: Date;
}

export interface CreateRouteInput {
  /** Case-insensitive; stored upper-case. */
  readonly method: string;
  readonly path: string;
  readonly middleware?: readonly string[] | undefined;
  readonly handler: string;
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

/** Route operations; each checks the principal's scope and workspace. */
export interface RouteService {
  create(principal: Principal, input: CreateRouteInput): Promise<Route>;
  get(principal: Principal, id: string): Promise<Route>;
  match(principal: Principal, input: MatchRouteInput): Promise<RouteMatch>;
}
