import type { Route, RouteEvent } from '@switchyard/core/routes';

/**
 * What a dispatcher needs of a live route table. The client's
 * `watchRouteTable(…)` and the core's `SyncedRouteTable` both are one, so
 * this package depends on neither's implementation.
 */
export interface RouteTableSource {
  /** The revision `routes()` is at. */
  readonly revision: number;
  /** The whole table at `revision`. */
  routes(): readonly Route[];
  /** Called after each change of `routes()` and `revision`; returns the unsubscribe. */
  onChange(listener: (event: RouteEvent) => void): () => void;
}
