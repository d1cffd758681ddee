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
import { idOnlyTracing, infoLine, requestIdFrom, TRACEPARENT_HEADER, type Logger, type Tracing } from '@switchyard/runtime';
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
 * or a fresh one, echoed in response metadata), authentication where needed,
 * error mapping in one place, and one log line with method, code and duration.
 */
export interface Rpc {
  unary<Req, Res>(method: string, run: (request: Req, context: AuthedContext) => Promise<Res>): handleUnaryCall<Req, Res>;
  clientStream<Req, Res>(method: string, run: (call: ServerReadableStream<Req, Res>, context: AuthedContext) => Promise<Res>): handleClientStreamingCall<Req, Res>;
  /** Public (no token): the handler writes to `call`; the wrapper ends it. */
  publicServerStream<Req, Res>(method: string, run: (call: ServerWritableStream<Req, Res>, context: CallContext) => Promise<void>): handleServerStreamingCall<Req, Res>;
  /**
   * An authenticated stream that may run for as long as the client listens
   * (a watch): `closing` aborts when the server starts to shut down, and the
   * handler should then end, so shutdown need not wait for its deadline.
   */
  serverStream<Req, Res>(method: string, run: (call: ServerWritableStream<Req, Res>, context: AuthedContext & { readonly closing: AbortSignal }) => Promise<void>): handleServerStreamingCall<Req, Res>;
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
const SERVER_FAILURES = new Set<number>([Status.UNKNOWN, Status.DEADLINE_EXCEEDED, Status.UNIMPLEMENTED, Status.INTERNAL, Status.UNAVAILABLE, Status.DATA_LOSS]);

/** The one line logged per call. */
interface CallLine {
  requestId: string;
  traceId: string;
  method: string;
  workspace?: string | undefined;
  subject?: string | undefined;
  code: string;
  durationMs: number;
}

export function createRpc(log: Logger, authenticate: Authenticate, tracing: Tracing = idOnlyTracing()): Rpc {
  const callLine = infoLine<CallLine>(log, 'call', { requestId: 'string', traceId: 'string', method: 'string', workspace: 'string', subject: 'string', code: 'string', durationMs: 'number' });
  const running = new Set<Promise<unknown>>();
  const closing = new AbortController();
  /** Remembers a handler's work until it settles; the caller handles its outcome. */
  function track<T>(work: Promise<T>): Promise<T> {
    const done: Promise<boolean> = work.then(
      () => running.delete(done),
      () => running.delete(done),
    );
    running.add(done);
    return work;
  }

  /**
   * Response headers (carrying the request id) go out at `finish` for unary
   * calls, in the same write as the reply (one syscall and one wake-up of the
   * caller fewer); streaming calls send them at once.
   */
  function begin(method: string, call: AnyCall, headersAtFinish = true) {
    const requestId = requestIdFrom(call.metadata.get(REQUEST_ID_KEY)[0]);
    const started = performance.now();
    const incoming = call.metadata.get(TRACEPARENT_HEADER)[0];
    const span = tracing.startServerSpan(method, typeof incoming === 'string' ? incoming : undefined, { 'rpc.system': 'grpc', 'rpc.method': method });
    const traceId = span.traceId;
    // The call's own logger is made only when something logs through it: most calls log just the one line below.
    let callLog: Logger | undefined;
    const logOfCall = (): Logger => (callLog ??= log.child({ requestId, traceId, method }));
    const context: CallContext = {
      requestId,
      get log() {
        return logOfCall();
      },
    };
    const sendHeaders = (): void => {
      const response = new Metadata();
      response.set(REQUEST_ID_KEY, requestId);
      call.sendMetadata(response);
    };
    if (!headersAtFinish) sendHeaders();
    let who: { workspace?: string; subject?: string } = {};
    return {
      context,
      async authenticate(): Promise<AuthedContext> {
        const principal = await authenticate(call.metadata);
        who = { workspace: principal.workspace, subject: principal.subject };
        return {
          requestId,
          principal,
          get log() {
            return logOfCall();
          },
        };
      },
      /** Logs the outcome; returns the status to send when the call failed. */
      finish(error?: unknown) {
        if (headersAtFinish) sendHeaders();
        const failed = error === undefined ? undefined : toGrpcStatus(error, context.log);
        const status = failed?.code ?? Status.OK;
        const code = Status[status];
        const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
        span.end({ error: SERVER_FAILURES.has(status), attributes: { 'rpc.grpc.status_code': status } });
        callLine({ requestId, traceId, method, workspace: who.workspace, subject: who.subject, code, durationMs });
        return failed;
      },
    };
  }

  /** Ends a server stream when its handler settles: OK, or the failure's status (grpc-js takes an 'error' event as the final status). */
  function endStream(call: ServerWritableStream<unknown, unknown>, tracker: { finish(error?: unknown): ReturnType<typeof toGrpcStatus> | undefined }, work: Promise<void>): void {
    work.then(
      () => {
        tracker.finish();
        call.end();
      },
      (error: unknown) => {
        const failed = tracker.finish(error);
        if (failed && !call.cancelled) call.emit('error', failed);
      },
    );
  }

  return {
    unary: (method, run) => (call, callback) => {
      const tracker = begin(method, call);
      track(tracker.authenticate().then((context) => run(decoded(call.request), context))).then(
        (response) => {
          tracker.finish();
          callback(null, response);
        },
        (error: unknown) => callback(tracker.finish(error) ?? null),
      );
    },

    clientStream: (method, run) => (call, callback) => {
      // Headers at once: an uploader learns the call was taken before it sends everything.
      const tracker = begin(method, call, false);
      track(tracker.authenticate().then((context) => run(call, context))).then(
        (response) => {
          tracker.finish();
          callback(null, response);
        },
        (error: unknown) => {
          callback(tracker.finish(error) ?? null);
          // Stop reading whatever the client still sends.
          call.destroy();
        },
      );
    },

    publicServerStream: (method, run) => (call) => {
      const tracker = begin(method, call, false);
      endStream(call, tracker, track(Promise.resolve().then(() => decoded(call.request)).then(() => run(call, tracker.context))));
    },

    serverStream: (method, run) => (call) => {
      const tracker = begin(method, call, false);
      endStream(call, tracker, track(tracker.authenticate().then((context) => run(call, { ...context, closing: closing.signal }))));
    },

    endStreams: () => closing.abort(),

    settled: async () => {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
