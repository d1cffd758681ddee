import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, type TraceParent } from './trace-context.js';

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** One request (gateway) or call (service) as a server span. */
export interface ServerSpan {
  /** For log lines: every line of a request carries it. */
  readonly traceId: string;
  /** The `traceparent` to send on with calls made for this request: this span as their parent. */
  readonly traceparent: string;
  /** Ends the span; `error` marks it failed. */
  end(outcome: { readonly error?: boolean; readonly attributes?: SpanAttributes }): void;
}

/**
 * Server spans for requests and calls. A valid incoming `traceparent`
 * continues the caller's trace, else a new one begins. Without an exporter
 * the ids are only carried and logged; with OTEL_EXPORTER_OTLP_ENDPOINT the
 * spans are exported over OTLP/HTTP through the OpenTelemetry SDK (created by
 * hand: the automatic instrumentations do not hook ESM imports).
 */
export interface Tracing {
  startServerSpan(name: string, traceparent: string | undefined, attributes?: SpanAttributes): ServerSpan;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * A span that only carries ids. Its `traceparent` (a span id of its own) is
 * made when first read: the service never sends one on (the gateway does,
 * with every call it makes), and every id costs random bytes and a string.
 */
class IdOnlySpan implements ServerSpan {
  readonly traceId: string;
  readonly #sampled: boolean;
  #traceparent: string | undefined;

  constructor(parent: TraceParent | undefined) {
    this.traceId = parent?.traceId ?? newTraceId();
    this.#sampled = parent?.sampled ?? false;
  }

  get traceparent(): string {
    return (this.#traceparent ??= formatTraceparent(this.traceId, newSpanId(), this.#sampled));
  }

  end(): void {}
}

/** Ids carried and logged, nothing recorded. */
export function idOnlyTracing(): Tracing {
  return {
    startServerSpan: (_name, header) => new IdOnlySpan(parseTraceparent(header)),
    shutdown: async () => {},
  };
}

export interface OtlpTracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  /** `service.name` of the spans (OTEL_SERVICE_NAME, else the app's name). */
  readonly serviceName: string;
}

/** Spans recorded by the OpenTelemetry SDK and exported in batches over OTLP/HTTP. */
export function otlpTracing(options: OtlpTracingOptions): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  const tracer: Tracer = provider.getTracer('switchyard');
  return {
    startServerSpan(name, header, attributes = {}) {
      const parent = parseTraceparent(header);
      const parentContext = parent
        ? trace.setSpanContext(context.active(), {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          })
        : context.active();
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext);
      const { traceId, spanId, traceFlags } = span.spanContext();
      return {
        traceId,
        traceparent: formatTraceparent(traceId, spanId, (traceFlags & TraceFlags.SAMPLED) !== 0),
        end({ error = false, attributes: more = {} }) {
          span.setAttributes(more);
          if (error) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}

/** OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME, as read at start. */
export interface TracesConfig {
  readonly endpoint: string | undefined;
  readonly serviceName: string | undefined;
}

/** OTLP export when an endpoint is configured, else ids only; `defaultName` unless OTEL_SERVICE_NAME says otherwise. */
export function createTracing(config: TracesConfig, defaultName: string): Tracing {
  return config.endpoint === undefined
    ? idOnlyTracing()
    : otlpTracing({ endpoint: config.endpoint, serviceName: config.serviceName ?? defaultName });
}
