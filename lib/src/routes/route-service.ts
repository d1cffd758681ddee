import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import type { RouteRecord, RouteStore } from '../ports/route-store.js';
import { validateCreateRoute, validateMatchRoute } from './route-input.js';
import { RouteTableCache } from './route-table-cache.js';
import { toRoute } from './route-view.js';
import type { CreateRouteInput, MatchRouteInput, Route, RouteMatch, RouteService } from './types.js';

export interface RouteServiceDeps {
  readonly store: RouteStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** How many workspaces keep a compiled matcher in memory (default 1000). */
  readonly cachedWorkspaces?: number | undefined;
}

/**
 * Route operations over a RouteStore. Each one checks the principal's scope
 * first, then sees only the principal's workspace: another workspace's route is
 * `not_found`, exactly like one that does not exist.
 */
export function createRouteService(deps: RouteServiceDeps): RouteService {
  const { store, clock, ids } = deps;
  const tables = new RouteTableCache(store, deps.cachedWorkspaces ?? 1000);

  return Object.freeze({
    async create(principal: Principal, input: CreateRouteInput): Promise<Route> {
      requireScope(principal, 'routes:write');
      const { method, pattern, middleware, handler } = validateCreateRoute(input);
      const record: RouteRecord = {
        id: ids.next('route'),
        workspace: principal.workspace,
        method,
        path: pattern.source,
        shape: pattern.shape,
        middleware,
        handler,
        // Stores keep milliseconds; a Date never holds more, and copying detaches it from the clock.
        createdAt: new Date(Math.trunc(clock.now().getTime())),
      };
      await store.insert(record);
      return toRoute(record);
    },

    async get(principal: Principal, id: string): Promise<Route> {
      requireScope(principal, 'routes:read');
      const routeId = assertId('route', id);
      const record = await store.get(principal.workspace, routeId);
      if (record === undefined) throw new SwitchyardError('not_found', 'route not found', [{ field: 'id', reason: 'no such route in this workspace' }]);
      return toRoute(record);
    },

    async match(principal: Principal, input: MatchRouteInput): Promise<RouteMatch> {
      requireScope(principal, 'routes:read');
      const { method, path } = validateMatchRoute(input);
      const table = await tables.tableFor(principal.workspace);
      const found = table.match(method, path);
      if (found === undefined) throw new SwitchyardError('not_found', `no route matches ${method} ${path}`, [{ field: 'path', reason: 'no route matches' }]);
      return { route: toRoute(found.route), params: found.params };
    },
  });
}
