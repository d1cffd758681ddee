export { createMetricsRegistry, metricsIfOn } from './registry.js';
export type { MetricsOn } from './registry.js';
export { serveMetrics } from './metrics-server.js';
export type { MetricsServer } from './metrics-server.js';
export { CounterFamily, HistogramFamily, HistogramCell } from './families.js';
export type { CounterCell } from './families.js';
export { capacityRefusals, capacityRefusalCell } from './capacity-refusals.js';
export type { CapacityBound } from './capacity-refusals.js';
