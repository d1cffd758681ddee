/**
 * Validation of an apply request (routes as code) from untrusted callers. The
 * whole desired table is checked before anything is planned or written, and
 * every bad entry is reported at once, named by its index (`routes[3].path`,
 * `routes[7].middleware[1]`), so a file with many mistakes is fixed in one
 * round trip; two entries with one method and path shape are a mistake too.
 */
import { invalidArgument, isSwitchyardError, SwitchyardError, type ErrorDetail } from '../errors.js';
import { parseOwner } from './owner.js';
import { parseRevision } from './route-history.js';
import { validateCreateRoute, type ValidCreateRoute } from './route-input.js';

/** The most routes one apply may name: a table larger than this is split by owner. */
export const MAX_APPLY_ROUTES = 10_000;

/** A desired route: valid, with its index in the request for error messages. */
export interface DesiredRoute extends ValidCreateRoute {
  readonly index: number;
}

export interface ValidApplyRoutes {
  readonly routes: readonly DesiredRoute[];
  /** `""`: the routes without an owner. */
  readonly owner: string;
  readonly prune: boolean;
  readonly expectedRevision: number | undefined;
  readonly dryRun: boolean;
}

export function validateApplyRoutes(input: unknown): ValidApplyRoutes {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidArgument('request', 'must be an object');
  const fields = input as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  const field = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!isSwitchyardError(error) || error.code !== 'invalid_argument') throw error;
      problems.push(...error.details);
      return undefined;
    }
  };
  const owner = field(() => parseOwner(fields['owner']));
  const prune = field(() => optionalBoolean(fields['prune'], 'prune'));
  const dryRun = field(() => optionalBoolean(fields['dryRun'], 'dryRun'));
  const expectedRevision = field(() => optionalRevision(fields['expectedRevision']));
  const routes = field(() => desiredRoutes(fields['routes'], owner));
  if (problems.length > 0 || owner === undefined || prune === undefined || dryRun === undefined || routes === undefined) {
    const shown = problems.slice(0, 3).map((p) => (p.field ? `${p.field}: ${p.reason}` : p.reason));
    const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
    throw new SwitchyardError('invalid_argument', `invalid apply: ${shown.join('; ')}${more}`, problems);
  }
  return { routes, owner, prune, expectedRevision, dryRun };
}

/** Every entry validated; the problems of all of them in one error. `owner` undefined: the apply's own is bad, so entries' owners are not compared. */
function desiredRoutes(value: unknown, owner: string | undefined): DesiredRoute[] {
  if (!Array.isArray(value)) throw invalidArgument('routes', 'must be an array of routes');
  if (value.length > MAX_APPLY_ROUTES) throw invalidArgument('routes', `must hold at most ${MAX_APPLY_ROUTES} routes`);
  const problems: ErrorDetail[] = [];
  const routes: DesiredRoute[] = [];
  const seen = new Map<string, number>();
  // A plain loop, and an entry's name made only for its problems (route-apply-5000: 5,000 entries).
  for (let index = 0; index < value.length; index++) {
    const entry: unknown = value[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ field: entryName(index), reason: 'must be an object' });
      continue;
    }
    let route: ValidCreateRoute;
    try {
      route = validateCreateRoute(entry);
    } catch (error) {
      if (!isSwitchyardError(error) || error.code !== 'invalid_argument') throw error;
      problems.push(
        ...error.details.map((detail) => ({
          field: detail.field ? `${entryName(index)}.${detail.field}` : entryName(index),
          reason: detail.reason,
        })),
      );
      continue;
    }
    const given = (entry as Record<string, unknown>)['owner'];
    if (owner !== undefined && given !== undefined && given !== null && route.owner !== owner)
      problems.push({ field: `${entryName(index)}.owner`, reason: `must be the apply's owner (${JSON.stringify(owner)}) or left out` });
    const key = `${route.method} ${route.pattern.shape}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({ field: `${entryName(index)}.path`, reason: `same method and path shape as routes[${first}] (${key})` });
      continue;
    }
    seen.set(key, index);
    // A literal, not a spread: V8 copies a spread with added properties slowly, and an apply names up to 10,000 (route-apply-5000).
    routes.push({
      method: route.method,
      pattern: route.pattern,
      middleware: route.middleware,
      handler: route.handler,
      owner: owner ?? route.owner,
      index,
    });
  }
  if (problems.length > 0) throw new SwitchyardError('invalid_argument', 'invalid routes', problems);
  return routes;
}

function entryName(index: number): string {
  return `routes[${index}]`;
}

function optionalBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidArgument(name, 'must be true or false');
  return value;
}

function optionalRevision(value: unknown): number | undefined {
  return value === undefined || value === null ? undefined : parseRevision(value, 'expectedRevision');
}
