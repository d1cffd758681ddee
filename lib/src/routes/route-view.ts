import type { RouteRecord } from '../ports/route-store.js';
import type { Route } from './types.js';

/**
 * A route as callers see it: a fresh, frozen copy without store-only fields
 * (workspace, shape), so no caller can change a stored or cached route.
 */
export function toRoute(record: Route | RouteRecord): Route {
  return Object.freeze({
    id: record.id,
    method: record.method,
    path: record.path,
    middleware: Object.freeze(record.middleware.slice()),
    handler: record.handler,
    owner: record.owner,
    createdAt: new Date(record.createdAt.getTime()),
    updatedAt: new Date(record.updatedAt.getTime()),
    revision: record.revision,
  });
}
