import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { invalidArgument, SwitchyardError } from '../errors.js';
import { assertId, isId } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { RouteStore } from '../ports/route-store.js';
import { nameTheConflict } from './route-conflict.js';
import { validateCreateRoute } from './route-input.js';
import { toRoute } from './route-view.js';
import type { Route, RouteListInput, RoutePage, UpdateRouteInput } from './types.js';

interface Deps {
  readonly store: RouteStore;
  readonly clock: Clock;
  /** Told after every committed write and the revision it made, so watchers (here and on other instances) hear of it without waiting for a poll. */
  readonly changed: (workspace: string, revision: number) => void;
}

export function routeNotFound(): SwitchyardError {
  return new SwitchyardError('not_found', 'route not found', [{ field: 'id', reason: 'no such route in this workspace' }]);
}

/** One page of the workspace's routes, oldest first, cut by (createdAt, id) so changes meanwhile never make a page skip or repeat one. */
export async function listRoutes(store: RouteStore, principal: Principal, input: RouteListInput): Promise<RoutePage> {
  requireScope(principal, 'routes:read');
  const limit = pageSizeOf(input.pageSize);
  const binding = bindingOf('routes', principal.workspace);
  const after = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  // One more than asked: whether another page follows is known without a second query.
  const records = await store.page(principal.workspace, after, limit + 1);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  const nextPageToken = records.length > limit && last ? encodePageToken([String(last.createdAt.getTime()), last.id], binding) : '';
  return { routes: page.map(toRoute), nextPageToken };
}

/** Changes a route: the fields given replace the stored ones, validated as on create, with the same 409 for a taken method and shape. */
export async function updateRoute(deps: Deps, principal: Principal, id: string, input: UpdateRouteInput): Promise<Route> {
  requireScope(principal, 'routes:write');
  const routeId = assertId('route', id);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidArgument('route', 'must be an object');
  const current = await deps.store.get(principal.workspace, routeId);
  if (!current) throw routeNotFound();
  const given = (field: keyof UpdateRouteInput) => (input[field] === undefined ? current[field] : input[field]);
  const { method, pattern, middleware, handler, owner } = validateCreateRoute({
    method: given('method'),
    path: given('path'),
    middleware: given('middleware'),
    handler: given('handler'),
    owner: given('owner'),
  });
  const updatedAt = new Date(Math.trunc(deps.clock.now().getTime()));
  const update = deps.store.update(
    principal.workspace,
    routeId,
    { method, path: pattern.source, shape: pattern.shape, middleware, handler, owner, updatedAt },
    { actor: principal.subject, time: updatedAt },
  );
  const record = await nameTheConflict(deps.store, principal.workspace, { id: routeId, method, shape: pattern.shape }, update);
  if (!record) throw routeNotFound();
  deps.changed(principal.workspace, record.revision);
  return toRoute(record);
}

export async function deleteRoute(deps: Deps, principal: Principal, id: string): Promise<void> {
  requireScope(principal, 'routes:write');
  const routeId = assertId('route', id);
  const time = new Date(Math.trunc(deps.clock.now().getTime()));
  const deleted = await deps.store.delete(principal.workspace, routeId, { actor: principal.subject, time });
  if (!deleted) throw routeNotFound();
  deps.changed(principal.workspace, deleted.revision);
}

function cursorOf(token: string, binding: string): { createdAt: Date; id: string } {
  const [createdAt, id] = decodePageToken(token, binding, 2);
  if (!/^\d{1,15}$/.test(createdAt ?? '') || id === undefined || !isId('route', id))
    throw invalidArgument('pageToken', 'is not a page token of this listing');
  return { createdAt: new Date(Number(createdAt)), id };
}
