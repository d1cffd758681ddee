import { collectDefaultMetrics, Registry } from 'prom-client';

export type { Registry } from 'prom-client';

/**
 * A registry with prom-client's default process and Node metrics (CPU,
 * memory, event loop lag, GC, handles). One per process: the all-in-one
 * server shares it between the service and the gateway.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
