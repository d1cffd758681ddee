export { createTracing, idOnlyTracing, otlpTracing } from './tracing.js';
export type { ServerSpan, SpanAttributes, Tracing, OtlpTracingOptions, TracesConfig } from './tracing.js';
export { parseTraceparent, formatTraceparent, KEY_ID_HEADER, TRACEPARENT_HEADER } from './trace-context.js';
export type { TraceParent } from './trace-context.js';
