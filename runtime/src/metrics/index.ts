export { createMetricsRegistry } from './registry.js';
export { serveMetrics, serveMetricsIfOn } from './metrics-server.js';
export type { MetricsServer } from './metrics-server.js';
