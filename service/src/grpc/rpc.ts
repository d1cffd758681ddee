import { performance } from 'node:perf_hooks';
import {
  Metadata,
  status as Status,
  type handleClientStreamingCall,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type ServerReadableStream,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import type { Principal } from '@switchyard/core';
import {
  idOnlyTracing,
  infoLine,
  requestIdFrom,
  KEY_ID_HEADER,
  TRACEPARENT_HEADER,
  type Logger,
  type ServerSpan,
  type SpanAttributes,
  type Tracing,
} from '@switchyard/runtime';
import type { Authenticate } from './auth.js';
import { decoded } from './decoding.js';
import { toGrpcStatus } from './error-mapping.js';

export const REQUEST_ID_KEY = 'x-request-id';

/** What every handler gets: a request id and a logger bound to it. */
export interface CallContext {
  readonly requestId: string;
  readonly log: Logger;
}

/** For calls that need a caller; the principal is verified before the handler runs. */
export interface AuthedContext extends CallContext {
  readonly principal: Principal;
}

/**
 * Wraps handlers so each call gets a request id (the caller's `x-request-id`
 * when it is a sane one, else a fresh one; in the response metadata of
 * streams, of failed calls and of calls that sent a sane one), authentication
 * where needed, error mapping in one place, and one log line with method,
 * code and duration.
 */
export interface Rpc {
  unary<Req, Res>(method: string, run: (request: Req, context: AuthedContext) => Promise<Res>): handleUnaryCall<Req, Res>;
  clientStream<Req, Res>(
    method: string,
    run: (call: ServerReadableStream<Req, Res>, context: AuthedContext) => Promise<Res>,
  ): handleClientStreamingCall<Req, Res>;
  /** Public (no token): the handler writes to `call`; the wrapper ends it. */
  publicServerStream<Req, Res>(
    method: string,
    run: (call: ServerWritableStream<Req, Res>, context: CallContext) => Promise<void>,
  ): handleServerStreamingCall<Req, Res>;
  /**
   * An authenticated stream that may run for as long as the client listens
   * (a watch): `closing` aborts when the server starts to shut down, and the
   * handler should then end, so shutdown need not wait for its deadline.
   */
  serverStream<Req, Res>(
    method: string,
    run: (call: ServerWritableStream<Req, Res>, context: AuthedContext & { readonly closing: AbortSignal }) => Promise<void>,
  ): handleServerStreamingCall<Req, Res>;
  /** Aborts every serverStream's `closing` signal (shutdown begins). */
  endStreams(): void;
  /** Resolves once no handler is running (shutdown waits for this before closing storage). */
  settled(): Promise<void>;
}

interface AnyCall {
  readonly metadata: Metadata;
  sendMetadata(metadata: Metadata): void;
}

/** gRPC codes that mark a server span as failed (OpenTelemetry's RPC conventions): the server's own failures, not the caller's mistakes. */
const SERVER_FAILURES = new Set<number>([
  Status.UNKNOWN,
  Status.DEADLINE_EXCEEDED,
  Status.UNIMPLEMENTED,
  Status.INTERNAL,
  Status.UNAVAILABLE,
  Status.DATA_LOSS,
]);

/** How a call that succeeded ends its span. */
const SPAN_OK = Object.freeze({ error: false, attributes: Object.freeze({ 'rpc.grpc.status_code': Status.OK }) });

/** The one line logged per call. */
interface CallLine {
  requestId: string;
  traceId: string;
  method: string;
  workspace?: string | undefined;
  subject?: string | undefined;
  /** The API key that authenticated the call (never its secret). */
  keyId?: string | undefined;
  code: string;
  durationMs: number;
}

/** A wrapped method's name and the attributes of its spans, made once when the handler is wrapped, not per call. */
interface CalledMethod {
  readonly name: string;
  readonly spanAttributes: SpanAttributes;
}

const calledMethod = (name: string): CalledMethod => ({
  name,
  spanAttributes: Object.freeze({ 'rpc.system': 'grpc', 'rpc.method': name }),
});

/** What every call of one Rpc shares. */
interface Shared {
  readonly log: Logger;
  readonly tracing: Tracing;
  readonly callLine: (line: CallLine) => void;
}

/**
 * A watch's context: its caller's, and the signal of the server closing. A
 * class, not an object literal with a getter (bench/hand-written-parts.md#no-literal-getters).
 */
class WatchContext implements AuthedContext {
  readonly requestId: string;
  readonly principal: Principal;
  readonly #context: AuthedContext;

  constructor(
    context: AuthedContext,
    readonly closing: AbortSignal,
  ) {
    this.requestId = context.requestId;
    this.principal = context.principal;
    this.#context = context;
  }

  get log(): Logger {
    return this.#context.log;
  }
}

/**
 * One call's bookkeeping, and the context its handler gets: the request id,
 * the span, the caller once verified, and the call's logger, made only when
 * something logs through it (most calls log just their one line). A class,
 * not closures, a tracker object and a promise in a set per call, for speed.
 * Justified by grpc-get-asset (bench/hand-written-parts.md#call-record).
 */
class CallRecord implements AuthedContext {
  readonly requestId: string;
  /** The caller sent the request id (so it is echoed on every reply). */
  readonly #idSupplied: boolean;
  readonly #shared: Shared;
  readonly #method: string;
  readonly #call: AnyCall;
  readonly #started = performance.now();
  readonly #span: ServerSpan;
  #principal: Principal | undefined;
  #log: Logger | undefined;

  constructor(shared: Shared, method: CalledMethod, call: AnyCall) {
    this.#shared = shared;
    this.#method = method.name;
    this.#call = call;
    const supplied = call.metadata.get(REQUEST_ID_KEY)[0];
    this.requestId = requestIdFrom(supplied);
    this.#idSupplied = this.requestId === supplied;
    const incoming = call.metadata.get(TRACEPARENT_HEADER)[0];
    this.#span = shared.tracing.startServerSpan(method.name, typeof incoming === 'string' ? incoming : undefined, method.spanAttributes);
  }

  get log(): Logger {
    return (this.#log ??= this.#shared.log.child({ requestId: this.requestId, traceId: this.#span.traceId, method: this.#method }));
  }

  /** The verified caller; only handlers that run after `authenticate` read it. */
  get principal(): Principal {
    if (this.#principal === undefined) throw new Error(`${this.#method}: the caller is read before it was verified`);
    return this.#principal;
  }

  /** Verifies the caller; the record is then the handler's AuthedContext. */
  authenticate(authenticate: Authenticate): Promise<AuthedContext> {
    return promised(authenticate, this.#call.metadata).then((principal) => this.verified(principal));
  }

  /** The record as the context of a handler, for the caller `authenticate` verified. */
  verified(principal: Principal): AuthedContext {
    this.#principal = principal;
    return this;
  }

  /**
   * Sends the response headers of a unary reply: the request id when the
   * caller sent one (its echo), none for a success that came without one.
   * The id made here for such a call is in its log line; putting it in every
   * reply as well costs server CPU on every call.
   * Justified by grpc-get-asset (bench/hand-written-parts.md#reply-headers).
   */
  sendReplyHeaders(failed: boolean): void {
    if (failed || this.#idSupplied || this.#principal?.keyId !== undefined) this.sendHeaders();
  }

  /**
   * Sends the response headers, carrying the request id, and the API key's id
   * when one authenticated the call already (unary replies and server
   * streams; client streams send their headers before the caller is verified).
   */
  sendHeaders(): void {
    const response = new Metadata();
    response.set(REQUEST_ID_KEY, this.requestId);
    const keyId = this.#principal?.keyId;
    if (keyId !== undefined) response.set(KEY_ID_HEADER, keyId);
    this.#call.sendMetadata(response);
  }

  /**
   * For a client stream, whose headers went out before the caller was
   * verified: the API key's id in the trailer of its answer, when a key
   * authenticated it.
   */
  keyTrailer(): Metadata | undefined {
    const keyId = this.#principal?.keyId;
    if (keyId === undefined) return undefined;
    const trailer = new Metadata();
    trailer.set(KEY_ID_HEADER, keyId);
    return trailer;
  }

  /** Ends the span and logs the outcome; returns the status to send when the call failed. */
  finish(error?: unknown): ReturnType<typeof toGrpcStatus> | undefined {
    const failed = error === undefined ? undefined : toGrpcStatus(error, this.log);
    const status = failed?.code ?? Status.OK;
    const durationMs = Math.round((performance.now() - this.#started) * 1000) / 1000;
    const principal = this.#principal;
    const keyId = principal?.keyId;
    const ended = status === Status.OK ? SPAN_OK : { error: SERVER_FAILURES.has(status), attributes: { 'rpc.grpc.status_code': status } };
    // A call made with an API key names the key (its id, never its secret) in its span as in its line.
    this.#span.end(keyId === undefined ? ended : { ...ended, attributes: { ...ended.attributes, 'switchyard.key_id': keyId } });
    this.#shared.callLine({
      requestId: this.requestId,
      traceId: this.#span.traceId,
      method: this.#method,
      workspace: principal?.workspace,
      subject: principal?.subject,
      keyId,
      code: Status[status],
      durationMs,
    });
    return failed;
  }
}

/**
 * What `work` returns, or its synchronous throw as a rejection: an
 * authenticator or handler that throws instead of rejecting must still end
 * its call (answered, logged, no longer counted as running), as an async
 * function's would.
 */
function promised<A, T>(work: (argument: A) => Promise<T>, argument: A): Promise<T> {
  try {
    return work(argument);
  } catch (error) {
    return Promise.reject(error);
  }
}

export function createRpc(log: Logger, authenticate: Authenticate, tracing: Tracing = idOnlyTracing()): Rpc {
  const callLine = infoLine<CallLine>(log, 'call', {
    requestId: 'string',
    traceId: 'string',
    method: 'string',
    workspace: 'string',
    subject: 'string',
    keyId: 'string',
    code: 'string',
    durationMs: 'number',
  });
  const shared: Shared = { log, tracing, callLine };
  const closing = new AbortController();
  // Handlers running, and who waits for there to be none: a count, not a set of promises per call.
  let running = 0;
  let idle: (() => void)[] = [];
  const started = (): void => void running++;
  const ended = (): void => {
    if (--running > 0) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };

  /** Runs a handler's work, counted as running until it settles. */
  function counted<T>(work: () => Promise<T>): Promise<T> {
    started();
    const promise = promised(work, undefined);
    promise.then(ended, ended);
    return promise;
  }

  /** Ends a server stream when its handler settles: OK, or the failure's status (grpc-js takes an 'error' event as the final status). */
  function endStream(call: ServerWritableStream<unknown, unknown>, record: CallRecord, work: Promise<void>): void {
    work.then(
      () => {
        record.finish();
        call.end();
      },
      (error: unknown) => {
        const failed = record.finish(error);
        if (failed && !call.cancelled) call.emit('error', failed);
      },
    );
  }

  return {
    unary: (method, run) => {
      const called = calledMethod(method);
      return (call, callback) => {
        const record = new CallRecord(shared, called, call);
        // The fewest promises a call can take (each is a turn of the microtask queue): counted as running
        // by hand, not by counted()'s promise. Response headers go out with the reply, in the same write.
        started();
        promised(authenticate, call.metadata)
          .then((principal) => run(decoded(call.request), record.verified(principal)))
          .then(
            (response) => {
              ended();
              record.sendReplyHeaders(false);
              record.finish();
              callback(null, response);
            },
            (error: unknown) => {
              ended();
              record.sendReplyHeaders(true);
              callback(record.finish(error) ?? null);
            },
          );
      };
    },

    clientStream: (method, run) => {
      const called = calledMethod(method);
      return (call, callback) => {
        const record = new CallRecord(shared, called, call);
        // Headers at once: an uploader learns the call was taken before it sends everything.
        record.sendHeaders();
        counted(() => record.authenticate(authenticate).then((context) => run(call, context))).then(
          (response) => {
            record.finish();
            callback(null, response, record.keyTrailer());
          },
          (error: unknown) => {
            callback(record.finish(error) ?? null);
            // Stop reading whatever the client still sends.
            call.destroy();
          },
        );
      };
    },

    publicServerStream: (method, run) => {
      const called = calledMethod(method);
      return (call) => {
        const record = new CallRecord(shared, called, call);
        record.sendHeaders();
        endStream(
          call,
          record,
          counted(() =>
            Promise.resolve()
              .then(() => decoded(call.request))
              .then(() => run(call, record)),
          ),
        );
      };
    },

    serverStream: (method, run) => {
      const called = calledMethod(method);
      return (call) => {
        const record = new CallRecord(shared, called, call);
        const watching = (context: AuthedContext) => new WatchContext(context, closing.signal);
        endStream(
          call,
          record,
          // Headers once the caller is verified, so they carry the API key's id: a watch is open until its client
          // leaves, when no trailer reaches the gateway, whose access line names the key from them.
          counted(() =>
            record.authenticate(authenticate).then(
              (context) => {
                record.sendHeaders();
                return run(call, watching(context));
              },
              (error: unknown) => {
                record.sendHeaders();
                throw error;
              },
            ),
          ),
        );
      };
    },

    endStreams: () => closing.abort(),

    settled: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
  };
}
