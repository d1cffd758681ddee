import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { invalidArgument, SwitchyardError } from '../errors.js';
import { assertId, isId } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { RouteCursor, RouteRecord, RouteStore } from '../ports/route-store.js';
import { parseRevision, tableAt } from './route-history.js';
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

/**
 * One page of the workspace's routes, oldest first, cut by (createdAt, id) so changes meanwhile never make a page skip or repeat one.
 * With `atRevision`, a page of the table as it was then (rebuilt from the change log for every page; its tokens are bound to the revision).
 */
export async function listRoutes(store: RouteStore, principal: Principal, input: RouteListInput): Promise<RoutePage> {
  requireScope(principal, 'routes:read');
  const limit = pageSizeOf(input.pageSize);
  const atRevision = input.atRevision == null ? undefined : parseRevision(input.atRevision, 'atRevision');
  const binding =
    atRevision === undefined ? bindingOf('routes', principal.workspace) : bindingOf('routes', principal.workspace, atRevision);
  const after = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  // One more than asked: whether another page follows is known without a second query.
  const records =
    atRevision === undefined
      ? await store.page(principal.workspace, after, limit + 1)
      : pageOf((await tableAt(store, principal.workspace, atRevision, 'atRevision')).records, after, limit + 1);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  const nextPageToken = records.length > limit && last ? encodePageToken([String(last.createdAt.getTime()), last.id], binding) : '';
  return { routes: page.map(toRoute), nextPageToken };
}

/** The records after the cursor, of records in (createdAt, id) order. */
function pageOf(records: readonly RouteRecord[], after: RouteCursor | undefined, limit: number): RouteRecord[] {
  const start = after === undefined ? 0 : records.findIndex((record) => isAfter(record, after));
  return start < 0 ? [] : records.slice(start, start + limit);
}

function isAfter(record: RouteRecord, cursor: RouteCursor): boolean {
  const time = record.createdAt.getTime() - cursor.createdAt.getTime();
  return time > 0 || (time === 0 && record.id > cursor.id);
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
