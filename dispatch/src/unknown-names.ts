import type { Route } from '@switchyard/core/routes';
import { lookup } from './registry.js';

/** A record that names a handler or middleware the service did not register. */
export interface UnknownNames {
  readonly route: Route;
  /** The handler's name, when it is the one missing. */
  readonly handler: string | undefined;
  /** The missing middleware names, in the record's order. */
  readonly middleware: readonly string[];
}

/** What `route` names that the registries lack; undefined when it has everything. */
export function findUnknownNames(
  route: Route,
  handlers: Readonly<Record<string, unknown>>,
  middleware: Readonly<Record<string, unknown>> | undefined,
): UnknownNames | undefined {
  const handler = lookup(handlers, route.handler) === undefined ? route.handler : undefined;
  const missing = route.middleware.filter((name) => lookup(middleware, name) === undefined);
  return handler === undefined && missing.length === 0 ? undefined : Object.freeze({ route, handler, middleware: Object.freeze(missing) });
}

/** One line for logs and the 501's message: which record, which names. */
export function describeUnknown(unknown: UnknownNames): string {
  const names = [
    ...(unknown.handler === undefined ? [] : [`handler "${unknown.handler}"`]),
    ...unknown.middleware.map((name) => `middleware "${name}"`),
  ];
  return `route ${unknown.route.id} (${unknown.route.method} ${unknown.route.path}) names ${names.join(' and ')}, which this service does not provide`;
}
