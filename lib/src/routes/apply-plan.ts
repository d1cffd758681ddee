/**
 * The plan of an apply: what must change for a workspace's route table to
 * hold the desired routes of one owner. Pure: the current table and the
 * desired routes in, the plan out; nothing read or written.
 *
 * - A route is identified by its method and path shape: a new handler,
 *   middleware or parameter name is an update of the same route (its id and
 *   creation time stay); a new shape is another route (a delete, with prune,
 *   and a create).
 * - Only the owner's routes are planned (`""`: the routes without an owner).
 *   Without `prune` nothing is deleted; with it, the owner's routes the
 *   desired table no longer names are.
 * - A desired route whose method and shape belong to another owner's route
 *   is never taken over: `already_exists` naming that owner (every such
 *   entry, by index), as a single create onto a taken shape is.
 * - The same table applied twice plans nothing the second time.
 */
import { SwitchyardError, type ErrorDetail } from '../errors.js';
import type { RouteRecord } from '../ports/route-store.js';
import type { DesiredRoute } from './apply-input.js';

export interface PlannedUpdate {
  readonly current: RouteRecord;
  readonly desired: DesiredRoute;
}

export interface RoutePlan {
  readonly create: readonly DesiredRoute[];
  readonly update: readonly PlannedUpdate[];
  /** The owner's routes no longer desired; empty without prune. */
  readonly delete: readonly RouteRecord[];
  /** The owner's routes that already are as desired. */
  readonly unchanged: readonly RouteRecord[];
}

export interface PlanOptions {
  readonly owner: string;
  readonly prune: boolean;
}

export function planApply(current: readonly RouteRecord[], desired: readonly DesiredRoute[], options: PlanOptions): RoutePlan {
  const byKey = new Map(current.map((record) => [keyOf(record.method, record.shape), record]));
  const create: DesiredRoute[] = [];
  const update: PlannedUpdate[] = [];
  const unchanged: RouteRecord[] = [];
  const claimed = new Set<string>();
  const foreign: ErrorDetail[] = [];
  const foreignOwners = new Set<string>();
  for (const route of desired) {
    const key = keyOf(route.method, route.pattern.shape);
    const existing = byKey.get(key);
    if (existing === undefined) create.push(route);
    else if (existing.owner !== options.owner) {
      foreign.push(takenBy(route, existing));
      foreignOwners.add(ownerName(existing));
    } else {
      claimed.add(existing.id);
      if (sameDefinition(existing, route)) unchanged.push(existing);
      else update.push({ current: existing, desired: route });
    }
  }
  if (foreign.length > 0) {
    throw new SwitchyardError(
      'already_exists',
      `${foreign.length} desired route(s) have the method and path shape of routes of ${[...foreignOwners].join(', ')}; an apply never takes over another owner's routes`,
      foreign,
    );
  }
  const remove = options.prune ? current.filter((record) => record.owner === options.owner && !claimed.has(record.id)) : [];
  return { create, update, delete: remove, unchanged };
}

/**
 * The plan that makes the whole table (every owner's routes) equal `target`,
 * as a rollback does: identity by method and shape again, so a route that
 * kept its shape is updated in place and one whose shape moved is deleted and
 * created anew.
 */
export function planTable(current: readonly RouteRecord[], target: readonly DesiredRoute[]): RoutePlan {
  const wanted = new Map(target.map((route) => [keyOf(route.method, route.pattern.shape), route]));
  const update: PlannedUpdate[] = [];
  const unchanged: RouteRecord[] = [];
  const remove: RouteRecord[] = [];
  const kept = new Set<string>();
  for (const record of current) {
    const key = keyOf(record.method, record.shape);
    const desired = wanted.get(key);
    if (desired === undefined) remove.push(record);
    else {
      kept.add(key);
      if (sameDefinition(record, desired) && record.owner === desired.owner) unchanged.push(record);
      else update.push({ current: record, desired });
    }
  }
  const create = target.filter((route) => !kept.has(keyOf(route.method, route.pattern.shape)));
  return { create, update, delete: remove, unchanged };
}

/** Whether the plan changes nothing. */
export function isEmptyPlan(plan: RoutePlan): boolean {
  return plan.create.length === 0 && plan.update.length === 0 && plan.delete.length === 0;
}

function keyOf(method: string, shape: string): string {
  return `${method} ${shape}`;
}

/** Method and shape are equal by identity; the rest of the definition decides. The owner is equal too in an apply: only the owner's routes get there. */
function sameDefinition(record: RouteRecord, route: DesiredRoute): boolean {
  return (
    record.path === route.pattern.source &&
    record.handler === route.handler &&
    record.middleware.length === route.middleware.length &&
    record.middleware.every((name, i) => name === route.middleware[i])
  );
}

function ownerName(record: RouteRecord): string {
  return record.owner === '' ? 'no owner (an apply without owner manages them)' : `owner ${JSON.stringify(record.owner)}`;
}

function takenBy(route: DesiredRoute, existing: RouteRecord): ErrorDetail {
  return {
    field: `routes[${route.index}].path`,
    reason: `${route.method} ${route.pattern.source} is route ${existing.id} (${existing.method} ${existing.path}) of ${ownerName(existing)}`,
  };
}
