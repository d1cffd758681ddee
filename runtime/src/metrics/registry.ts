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

/** A process's metrics while METRICS_PORT is on: the registry to record into and the port to serve it on. */
export interface MetricsOn {
  readonly registry: Registry;
  readonly port: number;
}

/**
 * The one place METRICS_PORT=off is decided: off, nothing is recorded or
 * served (metrics cost nothing); on, a registry (createMetricsRegistry) for
 * serveMetrics on that port.
 */
export function metricsIfOn(port: number | 'off'): MetricsOn | undefined {
  return port === 'off' ? undefined : { registry: createMetricsRegistry(), port };
}
