/**
 * `RouteService.apply`: validate the whole desired table, plan it against the
 * table as it is, write the plan as one revision. The write is a
 * compare-and-swap on the revision the plan was made against, so a plan is
 * never applied to a table it was not made for: with the caller's
 * `expectedRevision` a moved table is the caller's `aborted`; without one,
 * the apply plans again against the new table (a few times, then `aborted`).
 */
import { requireScope, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { isSwitchyardError } from '../errors.js';
import type { IdSource } from '../ids.js';
import type { RouteChange, RouteRecord, RouteRevisionWrite, RouteScope, RouteStore } from '../ports/route-store.js';
import { revisionRefusals } from '../ports/revision-refusals.js';
import { validateApplyRoutes, type DesiredRoute } from './apply-input.js';
import { planApply, type RoutePlan } from './apply-plan.js';
import { toRoute } from './route-view.js';
import type { ApplyRoutesInput, ApplyRoutesResult, Route, RouteUpdate } from './types.js';

/** Plans made again when other writes keep moving the table between the read and the write. */
export const MAX_APPLY_ATTEMPTS = 5;

export interface ApplyDeps {
  readonly store: RouteStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Told after a committed revision, as for every write. */
  readonly changed: (workspace: string, revision: number) => void;
}

export async function applyRoutes(deps: ApplyDeps, principal: Principal, input: ApplyRoutesInput): Promise<ApplyRoutesResult> {
  requireScope(principal, 'routes:write');
  const request = validateApplyRoutes(input);
  const plan = (records: readonly RouteRecord[]) => planApply(records, request.routes, request);
  const { store } = deps;
  if (store.scopedSnapshot === undefined) return writePlanned(deps, principal, request, plan);
  // The plan needs the owner's routes, and those at the desired shapes only to refuse taking over another owner's.
  // A store that can read just the owner's is asked for those (route-apply-5000: not every other owner's routes, nor
  // a lookup per desired shape); the write's unique key of method and shape then catches a desired route that is
  // another owner's, and the apply plans again with those routes read, so its refusal names them as the plan's does.
  const scoped = (keys: RouteScope['keys']) => (workspace: string) => store.scopedSnapshot!(workspace, { owner: request.owner, keys });
  const withShapes = () => scoped(request.routes.map((route) => ({ method: route.method, shape: route.pattern.shape })));
  if (request.dryRun) return writePlanned(deps, principal, { ...request, read: withShapes() }, plan);
  try {
    return await writePlanned(deps, principal, { ...request, read: scoped([]) }, plan);
  } catch (error) {
    if (!isSwitchyardError(error) || error.code !== 'already_exists') throw error;
    return writePlanned(deps, principal, { ...request, read: withShapes() }, plan);
  }
}

/** How a planned write runs: against the caller's revision, or planned again (a few times) when the table moves. */
export interface PlannedWriteOptions {
  readonly expectedRevision: number | undefined;
  readonly dryRun: boolean;
  /** Reads what the plan is made against, consistently with its revision; the whole table (`snapshot`) when left out. */
  readonly read?: ((workspace: string) => Promise<{ readonly revision: number; readonly records: RouteRecord[] }>) | undefined;
}

/**
 * Plans against the table as it is and writes the plan as one revision, a
 * compare-and-swap on the revision it was planned against (apply and
 * rollback alike).
 */
export async function writePlanned(
  deps: ApplyDeps,
  principal: Principal,
  options: PlannedWriteOptions,
  plan: (records: readonly RouteRecord[]) => RoutePlan,
): Promise<ApplyRoutesResult> {
  const { workspace } = principal;
  for (let attempt = 1; ; attempt++) {
    const table = await (options.read ? options.read(workspace) : deps.store.snapshot(workspace));
    if (options.expectedRevision !== undefined && options.expectedRevision !== table.revision)
      throw revisionRefusals.stale(options.expectedRevision, table.revision);
    const planned = plan(table.records);
    const now = new Date(Math.trunc(deps.clock.now().getTime()));
    if (options.dryRun) return dryRunResult(workspace, planned, table.revision, now);
    const write = revisionWrite(deps.ids, workspace, planned, now, { actor: principal.subject, time: now });
    try {
      const written = await deps.store.applyRevision({ ...write, expectedRevision: table.revision });
      if (written.changes.length > 0) deps.changed(workspace, written.revision);
      return writtenResult(written.revision, written.changes, planned.unchanged.length);
    } catch (error) {
      if (options.expectedRevision === undefined && isStale(error) && attempt < MAX_APPLY_ATTEMPTS) continue;
      throw error;
    }
  }
}

function revisionWrite(
  ids: IdSource,
  workspace: string,
  plan: RoutePlan,
  now: Date,
  origin: RouteRevisionWrite['origin'],
): Omit<RouteRevisionWrite, 'expectedRevision'> {
  return {
    workspace,
    delete: plan.delete.map((record) => record.id),
    // Literals, not spreads of definitionOf: V8 copies a spread with added properties slowly (route-apply-5000).
    update: plan.update.map(({ current, desired }) => ({
      id: current.id,
      update: {
        method: desired.method,
        path: desired.pattern.source,
        shape: desired.pattern.shape,
        middleware: desired.middleware,
        handler: desired.handler,
        owner: desired.owner,
        updatedAt: now,
      },
    })),
    create: plan.create.map((desired) => ({
      id: ids.next('route'),
      workspace,
      method: desired.method,
      path: desired.pattern.source,
      shape: desired.pattern.shape,
      middleware: desired.middleware,
      handler: desired.handler,
      owner: desired.owner,
      createdAt: now,
      updatedAt: now,
    })),
    origin,
  };
}

function definitionOf(desired: DesiredRoute) {
  return {
    method: desired.method,
    path: desired.pattern.source,
    shape: desired.pattern.shape,
    middleware: desired.middleware,
    handler: desired.handler,
    owner: desired.owner,
  };
}

function writtenResult(revision: number, changes: readonly RouteChange[], unchanged: number): ApplyRoutesResult {
  const created: Route[] = [];
  const updated: RouteUpdate[] = [];
  const deleted: Route[] = [];
  for (const change of changes) {
    // A revision just written has every `before` (only changes logged before 0009 may lack one).
    if (change.kind === 'create') created.push(toRoute(change.after));
    else if (change.kind === 'update') updated.push({ before: toRoute(change.before ?? change.after), after: toRoute(change.after) });
    else if (change.before) deleted.push(toRoute(change.before));
  }
  return { revision, created, updated, deleted, unchanged };
}

/** The plan as routes, as the write would make them: created ones have no id yet, and every written one the next revision. */
function dryRunResult(workspace: string, plan: RoutePlan, revision: number, now: Date): ApplyRoutesResult {
  const next = revision + 1;
  const planned = (record: Omit<RouteRecord, 'revision'>): RouteRecord => ({ ...record, revision: next });
  return {
    revision,
    created: plan.create.map((desired) =>
      toRoute(planned({ id: '', workspace, ...definitionOf(desired), createdAt: now, updatedAt: now })),
    ),
    updated: plan.update.map(({ current, desired }) => ({
      before: toRoute(current),
      after: toRoute(planned({ ...current, ...definitionOf(desired), updatedAt: now })),
    })),
    deleted: plan.delete.map(toRoute),
    unchanged: plan.unchanged.length,
  };
}

/** The store's compare-and-swap refusal: the table moved after it was read. */
function isStale(error: unknown): boolean {
  return isSwitchyardError(error) && error.code === 'aborted' && error.details.some((detail) => detail.field === 'expectedRevision');
}
