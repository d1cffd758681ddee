import type { Server, ServiceDefinition, UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { messageCountersOf, type MessageCounters } from '../grpc/grpc-metrics.js';

/** One method as grpc-js would serve it: its (de)serializers, kind and handler. */
export interface RegisteredMethod {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(message: unknown): Buffer;
  /** The handlers take and answer ts-proto objects, which the channel may hand over without the wire (message-bridge.ts). */
  readonly tsProto: boolean;
  /** Count messages handed over that way, as the (de)serializers count those they handle (metrics). */
  readonly counters: MessageCounters;
  readonly handler: UntypedHandleCall;
}

export interface AddServiceOptions {
  /** The definition's messages are ts-proto's (our generated services; not grpc-health-check's). */
  readonly tsProto?: boolean;
  /** The definition is one `GrpcMetrics.instrument` returned: messages handed over must be counted too. */
  readonly counted?: boolean;
}

const uncounted: MessageCounters = { sent: () => {}, received: () => {} };

/** A counted method's counters; a definition wrapped again after `instrument` would lose them, so that fails here, at start. */
function countersOf(method: object, path: string, counted: boolean): MessageCounters {
  if (!counted) return uncounted;
  const counters = messageCountersOf(method);
  if (counters === undefined)
    throw new Error(`${path}: registered as counted, but its definition is not the one GrpcMetrics.instrument returned`);
  return counters;
}

/**
 * The services registered on the gRPC server, kept by path so the in-process
 * channel calls the very handlers (and their wrappers) the server runs.
 */
export class HandlerTable {
  readonly #methods = new Map<string, RegisteredMethod>();

  /** Registers on `server` and here, as `server.addService` does. */
  addService(
    server: Pick<Server, 'addService'>,
    definition: ServiceDefinition,
    implementation: UntypedServiceImplementation,
    options: AddServiceOptions = {},
  ): void {
    server.addService(definition, implementation);
    for (const [name, method] of Object.entries(definition)) {
      const handler = implementation[name] ?? implementation[method.originalName ?? ''];
      if (handler === undefined) continue;
      this.#methods.set(method.path, {
        path: method.path,
        requestStream: method.requestStream,
        responseStream: method.responseStream,
        requestDeserialize: (bytes): unknown => method.requestDeserialize(bytes),
        responseSerialize: (message) => method.responseSerialize(message),
        tsProto: options.tsProto === true,
        counters: countersOf(method, method.path, options.counted === true),
        handler,
      });
    }
  }

  /**
   * A stand-in for the server for code that registers itself with
   * `addToServer(server)` (grpc-health-check): it calls `addService` only.
   */
  recorder(server: Pick<Server, 'addService'>): Server {
    return {
      addService: (definition: ServiceDefinition, implementation: UntypedServiceImplementation) =>
        this.addService(server, definition, implementation),
    } as unknown as Server;
  }

  get(path: string): RegisteredMethod | undefined {
    return this.#methods.get(path);
  }
}
