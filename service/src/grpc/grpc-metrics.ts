import { performance } from 'node:perf_hooks';
import type { ServiceDefinition, UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell, type Registry } from '@switchyard/runtime';

/** grpc_code values, as go-grpc-middleware names them (Go's codes.Code.String()), by status number. */
const CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

type GrpcType = 'unary' | 'client_stream' | 'server_stream' | 'bidi_stream';
interface MethodLabels {
  readonly grpc_type: GrpcType;
  readonly grpc_service: string;
  readonly grpc_method: string;
}

/** Buckets of go-grpc-middleware's handling-time histogram (Prometheus' defaults), in seconds. */
const HANDLING_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface StatusLike {
  readonly code?: number | undefined;
}
interface CallLike {
  readonly cancelled?: boolean;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** The cells of one method: counted without a label lookup per call. */
interface MethodCells {
  readonly started: CounterCell;
  readonly received: CounterCell;
  readonly sent: CounterCell;
  readonly handled: readonly CounterCell[];
  readonly handling: HistogramCell;
}

/** What counts a method's messages that cross without being (de)serialized (the in-process channel's bridge). */
export interface MessageCounters {
  sent(): void;
  received(message: unknown): void;
}

const bridgeCounters = new WeakMap<object, MessageCounters>();

/** The counters of `method`, a method definition `instrument` returned; undefined for any other. */
export function messageCountersOf(method: object): MessageCounters | undefined {
  return bridgeCounters.get(method);
}

/**
 * The gRPC server metrics of go-grpc-middleware, with its names and labels,
 * for every method of the services given to `instrument`: calls started and
 * handled (by code), messages received and sent, handling time. Counted at
 * the handlers and (de)serializers, so calls through the in-process channel
 * count exactly as calls over the network do. Every series exists at zero
 * from the start, so rates and alerts work before the first call.
 */
export class GrpcMetrics {
  readonly #started: CounterFamily<keyof MethodLabels>;
  readonly #handled: CounterFamily<keyof MethodLabels | 'grpc_code'>;
  readonly #received: CounterFamily<keyof MethodLabels>;
  readonly #sent: CounterFamily<keyof MethodLabels>;
  readonly #handling: HistogramFamily<keyof MethodLabels>;
  readonly #uploads: UploadMetrics;

  constructor(registry: Registry) {
    const labelNames = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
    this.#started = new CounterFamily(registry, {
      name: 'grpc_server_started_total',
      help: 'Total number of RPCs started on the server.',
      labelNames,
    });
    this.#handled = new CounterFamily(registry, {
      name: 'grpc_server_handled_total',
      help: 'Total number of RPCs completed on the server, regardless of success or failure.',
      labelNames: [...labelNames, 'grpc_code'],
    });
    this.#received = new CounterFamily(registry, {
      name: 'grpc_server_msg_received_total',
      help: 'Total number of RPC stream messages received on the server.',
      labelNames,
    });
    this.#sent = new CounterFamily(registry, {
      name: 'grpc_server_msg_sent_total',
      help: 'Total number of gRPC stream messages sent by the server.',
      labelNames,
    });
    this.#handling = new HistogramFamily(registry, {
      name: 'grpc_server_handling_seconds',
      help: 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
      labelNames,
      buckets: HANDLING_BUCKETS,
    });
    this.#uploads = new UploadMetrics(registry);
  }

  /** The service with every method counted; register what this returns. */
  instrument<D extends ServiceDefinition>(
    definition: D,
    implementation: UntypedServiceImplementation,
  ): { definition: D; implementation: UntypedServiceImplementation } {
    const counted: Record<string, unknown> = {};
    const handlers: UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      const labels = labelsOf(method.path, method.requestStream, method.responseStream);
      // Made now, at zero: every series exists before the first call.
      const cells: MethodCells = {
        started: this.#started.cell(labels),
        received: this.#received.cell(labels),
        sent: this.#sent.cell(labels),
        handled: CODE_NAMES.map((grpc_code) => this.#handled.cell({ ...labels, grpc_code })),
        handling: this.#handling.cell(labels),
      };
      const upload = labels.grpc_type === 'client_stream' ? this.#uploads.of(labels.grpc_method) : undefined;
      const counters: MessageCounters = {
        sent: () => void (cells.sent.value += 1),
        received: (message) => {
          cells.received.value += 1;
          upload?.received(message);
        },
      };
      const countedMethod = {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          const message: unknown = method.requestDeserialize(bytes);
          counters.received(message);
          return message;
        },
        responseSerialize: (message: unknown): Buffer => {
          counters.sent();
          return method.responseSerialize(message);
        },
      };
      bridgeCounters.set(countedMethod, counters);
      counted[name] = countedMethod;
      const handler = implementation[name] ?? implementation[method.originalName ?? ''];
      if (handler !== undefined) handlers[name] = countedHandler(handler, cells, method.responseStream, upload);
    }
    return { definition: counted as D, implementation: handlers };
  }
}

/** Wraps a handler: started now, handled once with its code, whichever way it ends. */
function countedHandler(
  handler: UntypedHandleCall,
  cells: MethodCells,
  responseStream: boolean,
  upload: UploadCounters | undefined,
): UntypedHandleCall {
  const wrapped = (
    call: CallLike,
    callback?: (status: StatusLike | null, value?: unknown, trailer?: unknown, flags?: unknown) => void,
  ): void => {
    const started = performance.now();
    cells.started.value += 1;
    upload?.started();
    let ended = false;
    const end = (code: number | undefined): void => {
      if (ended) return;
      ended = true;
      const index = call.cancelled ? CANCELED : code !== undefined && code >= 0 && code < CODE_NAMES.length ? code : UNKNOWN;
      cells.handled[index]!.value += 1;
      cells.handling.observe((performance.now() - started) / 1000);
      upload?.ended(CODE_NAMES[index]!);
    };
    if (responseStream) {
      // Server streams end with end() ('finish'), a status emitted as 'error', or a cancel.
      call.once('finish', () => end(0));
      call.once('error', (status) => end((status as StatusLike | undefined)?.code ?? UNKNOWN));
      call.once('cancelled', () => end(CANCELED));
      return (handler as (call: CallLike) => void)(call);
    }
    (handler as (call: CallLike, callback: unknown) => void)(
      call,
      (status: StatusLike | null, value?: unknown, trailer?: unknown, flags?: unknown) => {
        end(status?.code ?? 0);
        callback?.(status, value, trailer, flags);
      },
    );
  };
  return wrapped;
}

const CANCELED = 1;
const UNKNOWN = 2;

function labelsOf(path: string, requestStream: boolean, responseStream: boolean): MethodLabels {
  const [, service = '', method = ''] = path.split('/');
  const grpc_type: GrpcType = requestStream
    ? responseStream
      ? 'bidi_stream'
      : 'client_stream'
    : responseStream
      ? 'server_stream'
      : 'unary';
  return { grpc_type, grpc_service: service, grpc_method: method };
}

interface UploadCounters {
  started(): void;
  received(message: unknown): void;
  ended(code: string): void;
}

/**
 * Uploads (the client-streaming methods) as an upload service's operators
 * watch them, in the spirit of tusd's metrics: started, finished, failed by
 * code, and the file bytes received.
 */
class UploadMetrics {
  readonly #started: CounterFamily<'grpc_method'>;
  readonly #finished: CounterFamily<'grpc_method'>;
  readonly #failed: CounterFamily<'grpc_method' | 'grpc_code'>;
  readonly #bytes: CounterFamily<'grpc_method'>;

  constructor(registry: Registry) {
    const labelNames = ['grpc_method'] as const;
    this.#started = new CounterFamily(registry, {
      name: 'switchyard_uploads_started_total',
      help: 'Uploads and replaces started.',
      labelNames,
    });
    this.#finished = new CounterFamily(registry, {
      name: 'switchyard_uploads_finished_total',
      help: 'Uploads and replaces stored.',
      labelNames,
    });
    this.#failed = new CounterFamily(registry, {
      name: 'switchyard_uploads_failed_total',
      help: 'Uploads and replaces that stored nothing, by gRPC code.',
      labelNames: ['grpc_method', 'grpc_code'],
    });
    this.#bytes = new CounterFamily(registry, {
      name: 'switchyard_upload_bytes_received_total',
      help: 'File bytes received in uploads and replaces.',
      labelNames,
    });
  }

  of(grpc_method: string): UploadCounters {
    const started = this.#started.cell({ grpc_method });
    const finished = this.#finished.cell({ grpc_method });
    const bytes = this.#bytes.cell({ grpc_method });
    // At zero from the start, like grpc_server_handled_total: an alert on failures works before the first one.
    for (const grpc_code of CODE_NAMES) if (grpc_code !== 'OK') this.#failed.cell({ grpc_method, grpc_code });
    return {
      started: () => void (started.value += 1),
      received: (message) => {
        const chunk = (message as { chunk?: unknown } | undefined)?.chunk;
        if (chunk instanceof Uint8Array) bytes.value += chunk.length;
      },
      ended: (grpc_code) => {
        if (grpc_code === 'OK') finished.value += 1;
        else this.#failed.cell({ grpc_method, grpc_code }).value += 1;
      },
    };
  }
}
