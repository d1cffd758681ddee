import { performance } from 'node:perf_hooks';
import type { ServiceDefinition, UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from '@switchyard/runtime';

/** grpc_code values, as go-grpc-middleware names them (Go's codes.Code.String()), by status number. */
const CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'] as const;

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

/**
 * The gRPC server metrics of go-grpc-middleware, with its names and labels,
 * for every method of the services given to `instrument`: calls started and
 * handled (by code), messages received and sent, handling time. Counted at
 * the handlers and (de)serializers, so calls through the in-process channel
 * count exactly as calls over the network do. Every series exists at zero
 * from the start, so rates and alerts work before the first call.
 */
export class GrpcMetrics {
  readonly #started: Counter<keyof MethodLabels>;
  readonly #handled: Counter<keyof MethodLabels | 'grpc_code'>;
  readonly #received: Counter<keyof MethodLabels>;
  readonly #sent: Counter<keyof MethodLabels>;
  readonly #handling: Histogram<keyof MethodLabels>;

  constructor(registry: Registry) {
    const labelNames = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
    const registers = [registry];
    this.#started = new Counter({ name: 'grpc_server_started_total', help: 'Total number of RPCs started on the server.', labelNames, registers });
    this.#handled = new Counter({ name: 'grpc_server_handled_total', help: 'Total number of RPCs completed on the server, regardless of success or failure.', labelNames: [...labelNames, 'grpc_code'], registers });
    this.#received = new Counter({ name: 'grpc_server_msg_received_total', help: 'Total number of RPC stream messages received on the server.', labelNames, registers });
    this.#sent = new Counter({ name: 'grpc_server_msg_sent_total', help: 'Total number of gRPC stream messages sent by the server.', labelNames, registers });
    this.#handling = new Histogram({ name: 'grpc_server_handling_seconds', help: 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.', labelNames, buckets: HANDLING_BUCKETS, registers });
  }

  /** The service with every method counted; register what this returns. */
  instrument<D extends ServiceDefinition>(definition: D, implementation: UntypedServiceImplementation): { definition: D; implementation: UntypedServiceImplementation } {
    const counted: Record<string, unknown> = {};
    const handlers: UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      const labels = labelsOf(method.path, method.requestStream, method.responseStream);
      this.#zero(labels);
      counted[name] = {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          this.#received.inc(labels);
          return method.requestDeserialize(bytes);
        },
        responseSerialize: (message: unknown): Buffer => {
          this.#sent.inc(labels);
          return method.responseSerialize(message);
        },
      };
      const handler = implementation[name] ?? implementation[method.originalName ?? ''];
      if (handler !== undefined) handlers[name] = this.#counted(handler, labels, method.responseStream);
    }
    return { definition: counted as D, implementation: handlers };
  }

  #zero(labels: MethodLabels): void {
    this.#started.inc(labels, 0);
    this.#received.inc(labels, 0);
    this.#sent.inc(labels, 0);
    this.#handling.zero(labels);
    for (const grpc_code of CODE_NAMES) this.#handled.inc({ ...labels, grpc_code }, 0);
  }

  /** Wraps a handler: started now, handled once with its code, whichever way it ends. */
  #counted(handler: UntypedHandleCall, labels: MethodLabels, responseStream: boolean): UntypedHandleCall {
    const wrapped = (call: CallLike, callback?: (status: StatusLike | null, ...rest: unknown[]) => void): void => {
      const started = performance.now();
      this.#started.inc(labels);
      let ended = false;
      const end = (code: number | undefined): void => {
        if (ended) return;
        ended = true;
        const name = call.cancelled ? 'Canceled' : (CODE_NAMES[code ?? 0] ?? 'Unknown');
        this.#handled.inc({ ...labels, grpc_code: name });
        this.#handling.observe(labels, (performance.now() - started) / 1000);
      };
      if (responseStream) {
        // Server streams end with end() ('finish'), a status emitted as 'error', or a cancel.
        call.once('finish', () => end(0));
        call.once('error', (status) => end((status as StatusLike | undefined)?.code ?? 2));
        call.once('cancelled', () => end(1));
        return (handler as (call: CallLike) => void)(call);
      }
      (handler as (call: CallLike, callback: unknown) => void)(call, (status: StatusLike | null, ...rest: unknown[]) => {
        end(status?.code ?? 0);
        callback?.(status, ...rest);
      });
    };
    return wrapped as unknown as UntypedHandleCall;
  }
}

function labelsOf(path: string, requestStream: boolean, responseStream: boolean): MethodLabels {
  const [, service = '', method = ''] = path.split('/');
  const grpc_type: GrpcType = requestStream ? (responseStream ? 'bidi_stream' : 'client_stream') : responseStream ? 'server_stream' : 'unary';
  return { grpc_type, grpc_service: service, grpc_method: method };
}
