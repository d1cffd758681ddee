import type { ClientHttp2Stream } from 'node:http2';
import {
  fromBinary,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from '@connectrpc/connect';
import type { Http2SessionManager } from '@connectrpc/connect-node';
import { systemTime, type Timers } from '@switchyard/core';
import { CALLER_LIFETIME, callerSignal } from '@switchyard/runtime';
import { exchange, webHeaders, type Reply, type Send } from './grpc-exchange.js';
import { envelope, framer, requestHeaders, serialize } from './grpc-framing.js';

/**
 * Connect's `Transport` with direct unary and client-streaming paths: one
 * HTTP/2 stream per call on the session manager's connection, messages framed
 * and the reply parsed in place. Connect's own transport runs every call
 * through its streaming machinery (async iterables, web `Headers`, linked
 * `AbortController`s, a `ConnectError` per successful call), and it copies
 * every upload chunk twice more (encoding, then framing), where
 * here a chunk's bytes go to the socket as they are. Server-streaming calls
 * keep Connect's transport.
 *
 * Kept for split deployments (the all-in-one server uses the service's
 * in-process channel) because only this path reaches rest-get-asset-split's
 * goal: Connect's gRPC transport, and a grpc-js client behind a Connect
 * Transport adapter, fall short of it.
 * Justified by rest-get-asset-split (bench/hand-written-parts.md#direct-transport).
 *
 * The semantics follow Connect's gRPC transport: the same error codes for
 * deadlines, cancellation, refused connections and HTTP/2 resets, and the
 * service's error details decoded from `grpc-status-details-bin`
 * (direct-transport.test.ts compares the two call for call). Deadlines of
 * the direct paths run on `time` (the system's timers by default).
 */
export function withDirectCalls(
  transport: Transport,
  sessionManager: Http2SessionManager,
  readMaxBytes: number,
  time: Timers = systemTime,
): Transport {
  const call = (
    method: DescMethod,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    send: Send,
  ): Promise<Reply> =>
    exchange({
      sessionManager,
      path: `/${method.parent.typeName}/${method.name}`,
      headers: requestHeaders(header, timeoutMs),
      send,
      signal,
      timeoutMs,
      readMaxBytes,
      time,
    });

  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const body = envelope(serialize(method.input, input));
    const reply = await call(method, callerSignal(signal, contextValues?.get(CALLER_LIFETIME)), timeoutMs, header, (stream) =>
      stream.end(body),
    );
    return Object.assign(new ReplyHeaders(reply), {
      stream: false as const,
      service: method.parent,
      method,
      message: parse(method.output, reply.message),
    });
  }

  async function stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    // The gateway passes its request's lifetime, not a signal: these calls take one, made from it.
    const ended = callerSignal(signal, contextValues?.get(CALLER_LIFETIME));
    if (method.methodKind !== 'client_streaming') return transport.stream(method, ended, timeoutMs, header, input, contextValues);
    const frames = framer(method.input);
    const reply = await call(method, ended, timeoutMs, header, (stream, fail) => {
      sendAll(stream, input, frames).catch((error: unknown) => fail(ConnectError.from(error)));
    });
    const message = parse(method.output, reply.message);
    return Object.assign(new ReplyHeaders(reply), {
      stream: true as const,
      service: method.parent,
      method,
      message: (async function* () {
        yield message;
      })(),
    });
  }

  return { unary, stream };
}

/** `fromBinary`, failing as Connect's parser does. */
function parse<O extends DescMessage>(schema: O, bytes: Uint8Array): MessageShape<O> {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    throw new ConnectError(`parse binary: ${error instanceof Error ? error.message : String(error)}`, Code.Internal);
  }
}

/**
 * Response headers and trailers as web `Headers`, built only if someone asks
 * (Connect's `onHeader`, `onTrailer`). The rest of a response is assigned onto
 * this object: spreading it would call the getters. A class, not an object
 * literal with getters, which V8 gives a hidden class of its own per call
 * (bench/hand-written-parts.md#no-literal-getters).
 */
class ReplyHeaders {
  readonly #reply: Reply;

  constructor(reply: Reply) {
    this.#reply = reply;
  }

  get header(): Headers {
    return webHeaders(this.#reply.header);
  }

  get trailer(): Headers {
    return webHeaders(this.#reply.trailer);
  }
}

/** Writes every message with backpressure, then ends the request; stops once the call is over. */
async function sendAll<I extends DescMessage>(
  stream: ClientHttp2Stream,
  messages: AsyncIterable<MessageInitShape<I>>,
  frames: (message: MessageInitShape<I>) => Uint8Array[],
): Promise<void> {
  for await (const message of messages) {
    // The service answered (or the call failed) before the end: leaving the loop closes the source.
    if (stream.closed || stream.destroyed) return;
    let flowing = true;
    for (const frame of frames(message)) flowing = stream.write(frame);
    if (!flowing) await drained(stream);
    if (stream.closed || stream.destroyed) return;
  }
  if (!stream.closed && !stream.destroyed) stream.end();
}

function drained(stream: ClientHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
