import { createUlidSource } from '../ids.js';
import type { NewRouteRecord } from '../ports/route-store.js';

// Route records for the store conformance suites.

const ids = createUlidSource();
/** The time of sample routes: milliseconds on purpose. */
export const SAMPLE_ROUTE_TIME = Date.parse('2024-03-04T05:06:07.089Z');

/** A valid route record; fields can be overridden. Times carry milliseconds on purpose. */
export function sampleRoute(workspace: string, overrides: Partial<NewRouteRecord> = {}): NewRouteRecord {
  const createdAt = overrides.createdAt ?? new Date(SAMPLE_ROUTE_TIME);
  return {
    id: ids.next('route'),
    workspace,
    method: 'GET',
    path: '/users/:id',
    shape: '/users/:',
    middleware: ['auth', 'rate-limit', 'audit.log'],
    handler: 'users.show',
    owner: '',
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

/** Every field, spelled out, so `undefined` vs missing or `null` vs `undefined` differences show. */
export function routeView(record: NewRouteRecord | undefined): unknown {
  if (!record) return record;
  const time = (value: Date) => (value instanceof Date ? value.toISOString() : `not a Date: ${String(value)}`);
  return {
    id: record.id,
    workspace: record.workspace,
    method: record.method,
    path: record.path,
    shape: record.shape,
    middleware: [...record.middleware],
    handler: record.handler,
    owner: record.owner,
    createdAt: time(record.createdAt),
    updatedAt: time(record.updatedAt),
  };
}
