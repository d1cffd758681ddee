/**
 * `RouteService.rollback`: one new revision whose table equals the one at an
 * earlier revision, rebuilt from the kept change log, then planned and
 * written as an apply is (every owner's routes, one revision or nothing).
 */
import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { planTable } from './apply-plan.js';
import { writePlanned, type ApplyDeps } from './apply-routes.js';
import type { DesiredRoute } from './apply-input.js';
import { parseRevision, tableAt } from './route-history.js';
import { validateCreateRoute } from './route-input.js';
import type { ApplyRoutesResult, RollbackRoutesInput } from './types.js';

export async function rollbackRoutes(deps: ApplyDeps, principal: Principal, input: RollbackRoutesInput): Promise<ApplyRoutesResult> {
  requireScope(principal, 'routes:write');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidArgument('request', 'must be an object');
  const revision = parseRevision(input.revision, 'revision');
  const expectedRevision = input.expectedRevision == null ? undefined : parseRevision(input.expectedRevision, 'expectedRevision');
  if (input.dryRun != null && typeof input.dryRun !== 'boolean') throw invalidArgument('dryRun', 'must be true or false');
  const { records } = await tableAt(deps.store, principal.workspace, revision, 'revision');
  // Stored routes are valid: validating them again gives the parsed patterns the planner compares by.
  const target: DesiredRoute[] = records.map((record, index) => ({ ...validateCreateRoute(record), index }));
  return writePlanned(deps, principal, { expectedRevision, dryRun: input.dryRun === true }, (current) => planTable(current, target));
}
