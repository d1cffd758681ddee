/**
 * What an apply did or would do, as lines for a terminal: `+` a route to
 * create, `~` one to change (with what changes), `-` one to delete, then one
 * summary line.
 */
import type { RestApplyResult, RestRoute } from '@switchyard/client';

export function planLines(result: RestApplyResult): string[] {
  return [
    ...result.created.map((route) => `+ ${route.method} ${route.path} -> ${definition(route)}`),
    ...result.updated.map(({ before, after }) => `~ ${after.method} ${after.path}: ${differences(before, after).join('; ')}`),
    ...result.deleted.map((route) => `- ${route.method} ${route.path} -> ${definition(route)}`),
  ];
}

export function hasChanges(result: RestApplyResult): boolean {
  return result.created.length + result.updated.length + result.deleted.length > 0;
}

/** `2 to create, 1 to update, 0 to delete, 5 unchanged (revision 12)`; `created` and so on once written. */
export function summaryLine(result: RestApplyResult, written: boolean): string {
  const [create, update, remove] = written ? ['created', 'updated', 'deleted'] : ['to create', 'to update', 'to delete'];
  const counts = `${result.created.length} ${create}, ${result.updated.length} ${update}, ${result.deleted.length} ${remove}, ${result.unchanged} unchanged`;
  return `${counts} (${written && hasChanges(result) ? 'now at revision' : 'revision'} ${result.revision})`;
}

function definition(route: RestRoute): string {
  const middleware = route.middleware.length > 0 ? ` [${route.middleware.join(', ')}]` : '';
  return `${route.handler}${middleware}${route.owner === '' ? '' : ` (owner ${route.owner})`}`;
}

function differences(before: RestRoute, after: RestRoute): string[] {
  const changes: string[] = [];
  if (before.path !== after.path) changes.push(`path ${before.path} -> ${after.path}`);
  if (before.handler !== after.handler) changes.push(`handler ${before.handler} -> ${after.handler}`);
  if (before.middleware.join(',') !== after.middleware.join(','))
    changes.push(`middleware [${before.middleware.join(', ')}] -> [${after.middleware.join(', ')}]`);
  if (before.owner !== after.owner) changes.push(`owner "${before.owner}" -> "${after.owner}"`);
  return changes;
}
