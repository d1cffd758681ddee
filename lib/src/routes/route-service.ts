import { requireScope, type Principal } from '../auth/principal.js';
import { systemTime, type Clock, type TimeSource } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { NewRouteRecord, RouteStore } from '../ports/route-store.js';
import { applyRoutes } from './apply-routes.js';
import { listRouteChanges } from './route-history.js';
import { rollbackRoutes } from './rollback-routes.js';
import { revisionFollowers } from '../changes/revision-followers.js';
import { deleteRoute, listRoutes, routeNotFound, updateRoute } from './route-lifecycle.js';
import { watchRoutes } from './watch-routes.js';
import { validateCreateRoute, validateMatchRoute } from './route-input.js';
import { RouteTableCache } from './route-table-cache.js';
import { nameTheConflict } from './route-conflict.js';
import { toRoute } from './route-view.js';
import type { CreateRouteInput, MatchRouteInput, Route, RouteMatch, RouteService } from './types.js';

export interface RouteServiceDeps {
  readonly store: RouteStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** How many workspaces keep a compiled matcher in memory (default 1000). */
  readonly cachedWorkspaces?: number | undefined;
  /** How often watchers' workspaces are checked for changes made elsewhere, without a feed or while it is down (default 250 ms). */
  readonly watchPollMs?: number | undefined;
  /** Where writes are announced to every instance, and heard from them; none: watchers poll. */
  readonly watchFeed?: ChangeFeed | undefined;
  /** With the feed up, watched workspaces are still read once per this interval (default 30 s): the most a lost message delays a change. */
  readonly watchSafetyPollMs?: number | undefined;
  /** A watch sends a heartbeat after this long without another event (default 15 s). */
  readonly watchHeartbeatMs?: number | undefined;
  /** The clock and timers of watches (polls, heartbeats) and of announcements sent again (systemTime). */
  readonly time?: TimeSource | undefined;
}

export const DEFAULT_WATCH_POLL_MS = 250;
export const DEFAULT_WATCH_HEARTBEAT_MS = 15_000;
export const DEFAULT_WATCH_SAFETY_POLL_MS = 30_000;

/**
 * Route operations over a RouteStore. Each one checks the principal's scope
 * first, then sees only the principal's workspace: another workspace's route is
 * `not_found`, exactly like one that does not exist.
 */
export function createRouteService(deps: RouteServiceDeps): RouteService {
  const { store, clock, ids } = deps;
  const time = deps.time ?? systemTime;
  const tables = new RouteTableCache(store, deps.cachedWorkspaces ?? 1000);
  const { revisions, changed } = revisionFollowers(store, {
    log: 'routes',
    pollMs: deps.watchPollMs ?? DEFAULT_WATCH_POLL_MS,
    feed: deps.watchFeed,
    safetyPollMs: deps.watchSafetyPollMs ?? DEFAULT_WATCH_SAFETY_POLL_MS,
    time,
  });
  const lifecycle = { store, clock, changed };
  const watch = { store, revisions, heartbeatMs: deps.watchHeartbeatMs ?? DEFAULT_WATCH_HEARTBEAT_MS, clock: time };

  return Object.freeze({
    async create(principal: Principal, input: CreateRouteInput): Promise<Route> {
      requireScope(principal, 'routes:write');
      const { method, pattern, middleware, handler, owner } = validateCreateRoute(input);
      const createdAt = new Date(Math.trunc(clock.now().getTime()));
      const record: NewRouteRecord = {
        id: ids.next('route'),
        workspace: principal.workspace,
        method,
        path: pattern.source,
        shape: pattern.shape,
        middleware,
        handler,
        owner,
        // Stores keep milliseconds; a Date never holds more, and copying detaches it from the clock.
        createdAt,
        updatedAt: createdAt,
      };
      const stored = await nameTheConflict(
        store,
        principal.workspace,
        record,
        store.insert(record, { actor: principal.subject, time: createdAt }),
      );
      changed(principal.workspace, stored.revision);
      return toRoute(stored);
    },

    async get(principal: Principal, id: string): Promise<Route> {
      requireScope(principal, 'routes:read');
      const routeId = assertId('route', id);
      const record = await store.get(principal.workspace, routeId);
      if (record === undefined) throw routeNotFound();
      return toRoute(record);
    },

    async match(principal: Principal, input: MatchRouteInput): Promise<RouteMatch> {
      requireScope(principal, 'routes:read');
      const { method, path } = validateMatchRoute(input);
      const table = await tables.tableFor(principal.workspace);
      const found = table.match(method, path);
      if (found === undefined)
        throw new SwitchyardError('not_found', `no route matches ${method} ${path}`, [{ field: 'path', reason: 'no route matches' }]);
      return { route: toRoute(found.route), params: found.params };
    },

    list: (principal, input) => listRoutes(store, principal, input),

    update: (principal, id, input) => updateRoute(lifecycle, principal, id, input),

    delete: (principal, id) => deleteRoute(lifecycle, principal, id),

    apply: (principal, input) => applyRoutes({ store, clock, ids, changed }, principal, input),

    changes: (principal, input) => listRouteChanges(store, principal, input),

    rollback: (principal, input) => rollbackRoutes({ store, clock, ids, changed }, principal, input),

    watch: (principal, options) => watchRoutes(watch, principal, options),
  } satisfies RouteService);
}
