export { createMetricsRegistry } from './registry.js';
export { serveMetrics, serveMetricsIfOn } from './metrics-server.js';
export type { MetricsServer } from './metrics-server.js';
export { CounterFamily, HistogramFamily, HistogramCell } from './families.js';
export type { CounterCell } from './families.js';
