import { SyncedRouteTable } from '@switchyard/core';
import { createDispatcher } from '@switchyard/dispatch';
import { handlers, middleware } from './registry.js';

export const table = new SyncedRouteTable();
export const reports: string[] = [];

export const dispatcher = createDispatcher({
  table,
  handlers,
  middleware,
  // Once per record that arrives naming something unregistered; its requests answer 501.
  onUnknown: ({ route, handler, middleware }) => reports.push(`${route.id} lacks ${[handler, ...middleware].filter(Boolean).join(', ')}`),
  // What a handler or middleware threw; the client gets a 500 that says only "internal error".
  onError: (error, ctx) => reports.push(`${ctx.route.handler} failed: ${String(error)}`),
  logger: null, // else console: unknown names with warn, failures with error
});
// For a metrics endpoint: counters since start, and the records that need a deploy.
export const status = () => ({ ...dispatcher.metrics(), unknownRecords: dispatcher.unknown().length });
