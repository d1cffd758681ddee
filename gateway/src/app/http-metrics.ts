import { HistogramFamily, type Registry } from '@switchyard/runtime';

/** OpenTelemetry's default buckets for HTTP server durations, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Methods named as they are; anything else (a fuzzer's FOO) is `other`, so the series stay bounded. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The label of a request that matched no route: never its raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** `route` is the label the gateway's onRequest hook computed: a route template or UNMATCHED_ROUTE. */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

/**
 * `http_server_request_duration_seconds` by method, route template
 * (`/v1/assets/:id`, never a raw path or an id) and status. Its cardinality
 * is bounded by routes × methods × statuses whatever clients send.
 */
export function httpRequestMetrics(registry: Registry): ObserveRequest {
  const histogram = new HistogramFamily(registry, {
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, from the request line to the last byte of the response.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
  });
  return (requestMethod, route, status, seconds) => {
    const method = KNOWN_METHODS.has(requestMethod) ? requestMethod : 'other';
    histogram.cell({ method, route, status_code: String(status) }).observe(seconds);
  };
}
