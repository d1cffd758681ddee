// The in-process channel (DESIGN.md, "Two channels"): a Connect Transport that
// calls the service's own grpc-js handlers, with their wrappers (auth, rate
// limits, cancellation, error mapping with details), without a socket or
// HTTP/2. Requests and responses are handed over as the messages each side's
// protobuf library would decode from the wire (message-bridge.ts); where that
// cannot be exact, they cross as the same protobuf bytes, decoded by the same
// (tolerant) deserializers. Errors come back as a gRPC client would build
// them from the trailers, so the gateway cannot tell the channels apart.
//
// Calls without interceptors skip Connect's runUnaryCall/runStreamingCall and
// their two AbortControllers, linked signals and DOMException per call;
// deadlines, caller signals and the caller's lifetime (CALLER_LIFETIME in the
// context values, which the gateway hands over instead of a signal) are
// honoured here instead. Deadlines run on the channel's timers (the system's by
// default), on the interceptor path too, so tests can run them on fake time.
// Justified by rest-get-asset (bench/hand-written-parts.md#calls-without-interceptors).
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type StreamResponse,
  type Transport,
  type UnaryResponse,
} from '@connectrpc/connect';
import { getAbortSignalReason, runStreamingCall, runUnaryCall } from '@connectrpc/connect/protocol';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import type { Metadata } from '@grpc/grpc-js';
import { systemTime, type TimerHandle, type Timers } from '@switchyard/core';
import { CALLER_LIFETIME, type CallerLifetime } from '@switchyard/runtime';
import { MAX_MESSAGE_BYTES } from '../grpc/server.js';
import { CallLife } from './call-life.js';
import { bridgeRequest, bridgeResponse } from './message-bridge.js';
import type { HandlerTable, RegisteredMethod } from './handler-table.js';
import { headersToMetadata, metadataToHeaders, readableCall, unaryCall, writableCall, type CallStatus } from './server-calls.js';

export interface InProcessTransportOptions {
  readonly interceptors?: Interceptor[];
  /** Refuses new calls (UNAVAILABLE) once the service is shutting down, as a stopped server would. */
  readonly accepting: () => boolean;
  /** Where call deadlines are scheduled; the system's timers by default. */
  readonly time?: Timers | undefined;
}

export interface InProcessChannel {
  readonly transport: Transport;
  /** Cancels every call in flight (a forced shutdown), as a server's forceShutdown does. */
  cancelAll(): void;
}

type Callback = (status: CallStatus | null, response?: unknown, trailer?: Metadata) => void;

export function createInProcessChannel(table: HandlerTable, options: InProcessTransportOptions): InProcessChannel {
  const { interceptors = [], accepting, time = systemTime } = options;
  const live = new Set<CallLife>();

  function lookup(method: DescMethod): RegisteredMethod {
    if (!accepting()) throw new ConnectError('the service is shutting down', Code.Unavailable);
    const path = `/${method.parent.typeName}/${method.name}`;
    const registered = table.get(path);
    if (registered === undefined) throw new ConnectError(`${path} is not served`, Code.Unimplemented);
    return registered;
  }

  function begin(header: HeadersInit | undefined): { life: CallLife; end(): void } {
    const life = new CallLife(headersToMetadata(header));
    live.add(life);
    return {
      life,
      end: () => {
        life.settle();
        live.delete(life);
      },
    };
  }

  /** The request as the server's deserializer sees it (handed over where that is exact), refused past the size a gRPC server takes. */
  function serverSide(registered: RegisteredMethod, schema: DescMessage, message: MessageShape<DescMessage>): unknown {
    const bridged = registered.tsProto ? bridgeRequest(schema, message, MAX_MESSAGE_BYTES) : undefined;
    if (bridged !== undefined) {
      registered.counters.received(bridged);
      return bridged;
    }
    const bytes = toBinary(schema, message);
    if (bytes.byteLength > MAX_MESSAGE_BYTES)
      throw new ConnectError(`Received message larger than max (${bytes.byteLength} vs ${MAX_MESSAGE_BYTES})`, Code.ResourceExhausted);
    return registered.requestDeserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /** The response as the gateway's client reads it: handed over (message-bridge.ts), or through the wire where that cannot be exact. */
  function clientSide<O extends DescMessage>(registered: RegisteredMethod, schema: O, response: unknown): MessageShape<O> {
    const bridged = registered.tsProto ? bridgeResponse(schema, response) : undefined;
    if (bridged === undefined) return fromBinary(schema, registered.responseSerialize(response));
    registered.counters.sent();
    return bridged;
  }

  /** One unary call; the caller's signal, its lifetime's end and a deadline (when given) cancel it. */
  function invokeUnary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    header: HeadersInit | undefined,
    message: MessageShape<I>,
    ends: CallEnds,
  ): Promise<UnaryResponse<I, O>> {
    return new Promise((resolve, reject) => {
      const registered = lookup(method);
      const { life, end } = begin(header);
      const unwatch = watch(life, ends, time, (reason) => {
        end();
        reject(reason);
      });
      const callback: Callback = (status, response) => {
        unwatch();
        end();
        if (status) return reject(statusError(status, life.responseHeader));
        resolve(new Answer(false, method, life, clientSide(registered, method.output, response)));
      };
      try {
        (registered.handler as (call: unknown, callback: Callback) => void)(
          unaryCall(life, serverSide(registered, method.input, message)),
          callback,
        );
      } catch (error) {
        unwatch();
        end();
        reject(error);
      }
    });
  }

  /** One streaming call (client or server stream); the caller's signal, its lifetime's end and a deadline (when given) cancel it. */
  async function invokeStream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    ends: CallEnds,
  ): Promise<StreamResponse<I, O>> {
    const registered = lookup(method);
    if (registered.requestStream && !registered.responseStream) {
      const { life, end } = begin(header);
      // A client whose own input fails resets the stream: its call fails at once with that error, and the
      // handler sees a cancel (as over the wire). Otherwise an abort or the deadline cancels the handler,
      // which then ends promptly, and the call ends with it, failing for that reason.
      let failCall: (error: unknown) => void = () => {};
      const inputFailed = (error: unknown): void => {
        failCall(error);
        life.cancel(ConnectError.from(error, Code.Canceled));
      };
      async function* requests(): AsyncGenerator<unknown> {
        const messages = input[Symbol.asyncIterator]();
        let open = true;
        try {
          for (;;) {
            let next: IteratorResult<MessageInitShape<I>>;
            try {
              next = await messages.next();
            } catch (error) {
              open = false;
              return inputFailed(error);
            }
            if (next.done) {
              open = false;
              return;
            }
            let request: unknown;
            try {
              request = serverSide(registered, method.input, create(method.input, next.value));
            } catch (error) {
              return inputFailed(error);
            }
            yield request;
          }
        } finally {
          // The handler stopped reading early (it answered, or gave up with an error thrown in at the
          // yield): stop reading the client too. What letting go of the input throws (an AbortError
          // from the request stream) is not the call's outcome; the handler's answer is (fuzz-rest
          // found a refused replace answered 'internal' when that error won the race).
          if (open) await messages.return?.()?.catch(() => undefined);
        }
      }
      const response = new Promise<unknown>((resolve, reject) => {
        failCall = reject;
        const unwatch = watch(life, ends, time);
        (registered.handler as (call: unknown, callback: Callback) => void)(readableCall(life, requests()), (status, value, trailer) => {
          unwatch();
          life.sendTrailer(trailer);
          const reason = life.cancelled ? life.reason : undefined;
          end();
          if (!status) return resolve(value);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the cancellation's reason, passed on as it came
          reject(reason ?? statusError(status, life.responseHeader));
        });
      });
      return new Answer(true, method, life, once(response.then((value) => clientSide(registered, method.output, value))));
    }
    if (!registered.requestStream && registered.responseStream) {
      const first = await firstOf(input);
      const { life, end } = begin(header);
      const unwatch = watch(life, ends, time);
      const output = new Outbox(life, () => {
        unwatch();
        end();
      });
      (registered.handler as (call: unknown) => void)(
        writableCall(life, serverSide(registered, method.input, create(method.input, first)), output),
      );
      // A watch sends its headers once the caller is verified (they name the API key): answered then, as over the wire.
      const headerSent = life.headerSent();
      if (headerSent !== undefined) await headerSent;
      return new Answer(
        true,
        method,
        life,
        output.messages((bytes) => clientSide(registered, method.output, bytes)),
      );
    }
    throw new ConnectError(`${registered.path}: bidirectional streams are not served in-process`, Code.Unimplemented);
  }

  const transport: Transport = {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      if (interceptors.length === 0)
        return invokeUnary(method, header, create(method.input, input), callEnds(signal, contextValues, deadlineOf(timeoutMs)));
      const deadline = deadlineSignal(time, signal, deadlineOf(timeoutMs));
      return runUnaryCall<I, O>({
        interceptors,
        signal: deadline.signal,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: 'POST',
          url: urlOf(method),
          header: new Headers(header),
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: (req) => invokeUnary(method, req.header, req.message, callEnds(req.signal, req.contextValues, undefined)),
      }).finally(deadline.stop);
    },

    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      if (interceptors.length === 0) return invokeStream(method, header, input, callEnds(signal, contextValues, deadlineOf(timeoutMs)));
      const deadline = deadlineSignal(time, signal, deadlineOf(timeoutMs));
      return runStreamingCall<I, O>({
        interceptors,
        signal: deadline.signal,
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: 'POST',
          url: urlOf(method),
          header: new Headers(header),
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: (req) => {
          // Connect aborts the call's signal when the stream ends, or fails: the deadline is then over.
          req.signal.addEventListener('abort', deadline.stop, { once: true });
          return invokeStream(method, req.header, req.message, callEnds(req.signal, req.contextValues, undefined));
        },
      }).catch((error: unknown) => {
        deadline.stop();
        throw error;
      });
    },
  };

  return {
    transport,
    cancelAll: () => {
      for (const life of live) life.cancel(new ConnectError('the service shut down', Code.Unavailable));
    },
  };
}

/**
 * A call's answer for the client, its headers made only when read (the
 * gateway reads them for few calls), not two Headers objects per call.
 * Justified by bench/tools/in-process-calls.ts (bench/hand-written-parts.md#lazy-answer-headers).
 * A class, not an object literal with getters: V8 gives every such literal a
 * hidden class of its own in the old generation, which kept each call's
 * objects alive through young-generation GCs (bench/hand-written-parts.md#no-literal-getters).
 */
class Answer<S extends boolean, M extends DescMethod, T> {
  readonly service: M['parent'];
  readonly #life: CallLife;
  #trailer: Headers | undefined;

  constructor(
    readonly stream: S,
    readonly method: M,
    life: CallLife,
    readonly message: T,
  ) {
    this.service = method.parent;
    this.#life = life;
  }

  get header(): Headers {
    return this.#life.responseHeader;
  }

  get trailer(): Headers {
    return (this.#trailer ??= this.#life.responseTrailer());
  }
}

/** As Connect's own transports read it: 0 or less means no deadline. */
const deadlineOf = (timeoutMs: number | undefined): number | undefined =>
  timeoutMs !== undefined && timeoutMs <= 0 ? undefined : timeoutMs;

const urlOf = (method: DescMethod): string => `in-process:///${method.parent.typeName}/${method.name}`;

/** What may end a call before its handler does. */
interface CallEnds {
  readonly signal: AbortSignal | undefined;
  readonly lifetime: CallerLifetime | undefined;
  readonly timeoutMs: number | undefined;
}

/** A call's ends from what the transport was given (the deadline already applied by runUnaryCall/runStreamingCall where they ran). */
const callEnds = (signal: AbortSignal | undefined, contextValues: ContextValues | undefined, timeoutMs: number | undefined): CallEnds => ({
  signal,
  lifetime: contextValues?.get(CALLER_LIFETIME),
  timeoutMs,
});

/**
 * The caller's signal, aborted too at the deadline (on `time`) with Connect's
 * deadline error: what Connect's runUnaryCall/runStreamingCall would make of
 * a timeoutMs, but on a global timer. `stop` clears the timer.
 */
function deadlineSignal(
  time: Timers,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): { signal: AbortSignal | undefined; stop(): void } {
  if (timeoutMs === undefined) return { signal, stop: () => {} };
  const controller = new AbortController();
  const onAbort = (): void => {
    stop();
    controller.abort(getAbortSignalReason(signal!));
  };
  const timer = time.setTimeout(() => {
    stop();
    controller.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded));
  }, timeoutMs);
  const stop = (): void => {
    time.clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, stop };
}

/**
 * Cancels the call when the caller's signal aborts, its lifetime ends or the
 * deadline passes on `time` (and stops watching), and tells `onEnd` (which
 * then ends the call for the caller) if given. Returns the function that stops watching.
 */
function watch(
  life: CallLife,
  { signal, lifetime, timeoutMs }: CallEnds,
  time: Timers,
  onEnd?: (reason: ConnectError) => void,
): () => void {
  let timer: TimerHandle | undefined;
  let unlisten: (() => void) | undefined;
  const unwatch = (): void => {
    time.clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    unlisten?.();
  };
  const stop = (reason: ConnectError): void => {
    unwatch();
    life.cancel(reason);
    onEnd?.(reason);
  };
  const onAbort = (): void => stop(ConnectError.from(getAbortSignalReason(signal!), Code.Canceled));
  const onCallerGone = (): void => stop(new ConnectError('the caller went away', Code.Canceled));
  if (signal?.aborted) onAbort();
  else if (lifetime?.ended) onCallerGone();
  else {
    if (timeoutMs !== undefined)
      timer = time.setTimeout(() => stop(new ConnectError('the operation timed out', Code.DeadlineExceeded)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    unlisten = lifetime?.onEnd(onCallerGone);
  }
  return unwatch;
}

function statusError(status: CallStatus, header: Headers): ConnectError {
  const trailer = status.metadata ? metadataToHeaders(status.metadata) : new Headers();
  trailer.set('grpc-status', String(status.code ?? Code.Unknown));
  trailer.set('grpc-message', encodeURIComponent(status.details ?? ''));
  const error = findTrailerError(trailer) ?? new ConnectError('internal error', Code.Internal);
  header.forEach((value, key) => error.metadata.append(key, value));
  return error;
}

async function* once<T>(value: Promise<T>): AsyncGenerator<T> {
  yield await value;
}

/** A server stream's one request; the rest of its (one-message) source is not read. */
async function firstOf<T>(messages: AsyncIterable<T>): Promise<T> {
  const first = await messages[Symbol.asyncIterator]().next();
  if (first.done) throw new ConnectError('the request stream ended without a message', Code.InvalidArgument);
  return first.value;
}

/**
 * Messages a server-streaming handler wrote, handed to the consumer one at a
 * time. A consumer that stops early cancels the call, as a reset stream would.
 */
class Outbox {
  readonly #waiting: { message: unknown; taken: () => void }[] = [];
  #ended = false;
  #failure: ConnectError | undefined;
  #wake: (() => void) | undefined;

  constructor(
    readonly life: CallLife,
    readonly onEnd: () => void,
  ) {
    life.onCancel(() => this.#notify());
  }

  deliver = (message: unknown): Promise<void> =>
    new Promise((taken, refused) => {
      if (this.life.cancelled) return refused(this.life.reason);
      this.#waiting.push({ message, taken });
      this.#notify();
    });

  end = (): void => {
    this.#ended = true;
    this.#notify();
  };

  fail = (status: CallStatus): void => {
    this.#failure ??= statusError(status, this.life.responseHeader);
    this.#notify();
  };

  #notify(): void {
    this.#wake?.();
    this.#wake = undefined;
  }

  async *messages<T>(decode: (message: unknown) => T): AsyncGenerator<T> {
    try {
      for (;;) {
        const next = this.#waiting.shift();
        if (next) {
          next.taken();
          yield decode(next.message);
          continue;
        }
        if (this.#failure) throw this.#failure;
        if (this.life.cancelled) throw this.life.reason;
        if (this.#ended) return;
        await new Promise<void>((wake) => (this.#wake = wake));
      }
    } finally {
      // Left early (the consumer broke off or failed): cancel the handler, as a reset stream would.
      if (!this.#ended && this.#failure === undefined) this.life.cancel(new ConnectError('the client stopped reading', Code.Canceled));
      for (const { taken } of this.#waiting.splice(0)) taken();
      this.onEnd();
    }
  }
}
