import { constants as h2, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { create, fromBinary, isMessage, ScalarType, toBinary, type DescMessage, type DescMethod, type DescMethodStreaming, type DescMethodUnary, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { validateResponse, validateTrailer } from '@connectrpc/connect/protocol-grpc';
import type { Http2SessionManager } from '@connectrpc/connect-node';

/**
 * Connect's `Transport` with direct unary and client-streaming paths: one
 * HTTP/2 stream per call on the session manager's connection, messages framed
 * and the reply parsed in place. Connect's own transport runs every call
 * through its streaming machinery (async iterables, web `Headers`, linked
 * `AbortController`s, a `ConnectError` per successful call), which the
 * gateway's profile showed costing twice what grpc-js costs per unary call;
 * and it copies every upload chunk twice more (encoding, then framing), where
 * here a chunk's bytes go to the socket as they are. Server-streaming calls
 * keep Connect's transport.
 *
 * The semantics follow Connect's gRPC transport: the same error codes for
 * deadlines, cancellation, refused connections and HTTP/2 resets, and the
 * service's error details decoded from `grpc-status-details-bin`
 * (direct-transport.test.ts compares the two call for call).
 */
export function withDirectCalls(transport: Transport, sessionManager: Http2SessionManager, readMaxBytes: number): Transport {
  /** Opens the call's HTTP/2 stream, sends with `send`, and resolves with the one reply message. */
  async function call(method: DescMethod, signal: AbortSignal | undefined, timeoutMs: number | undefined, header: HeadersInit | undefined, send: Send): Promise<Reply> {
    if (signal?.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
    const stream = await sessionManager.request('POST', `/${method.parent.typeName}/${method.name}`, requestHeaders(header, timeoutMs), {}).catch((reason: unknown) => {
      throw fromNodeReason(reason);
    });
    return exchange(stream, sessionManager, send, signal, timeoutMs, readMaxBytes);
  }

  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
  ): Promise<UnaryResponse<I, O>> {
    const body = envelope(toBinary(method.input, isMessage(input, method.input) ? input : create(method.input, input)));
    const reply = await call(method, signal, timeoutMs, header, (stream) => stream.end(body));
    return Object.assign(replyHeaders(reply), { stream: false as const, service: method.parent, method, message: fromBinary(method.output, reply.message) });
  }

  async function stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    if (method.methodKind !== 'client_streaming') return transport.stream(method, signal, timeoutMs, header, input, contextValues);
    const frames = framer(method.input);
    const reply = await call(method, signal, timeoutMs, header, (stream, fail) => {
      sendAll(stream, input, frames).catch((error: unknown) => fail(fromNodeReason(error)));
    });
    const message = fromBinary(method.output, reply.message);
    return Object.assign(replyHeaders(reply), {
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

/**
 * Response headers and trailers as web `Headers`, built only if someone asks
 * (Connect's `onHeader`, `onTrailer`). The rest of a response is assigned onto
 * this object: spreading it would call the getters.
 */
function replyHeaders(reply: Reply): { readonly header: Headers; readonly trailer: Headers } {
  return {
    get header() {
      return webHeaders(reply.header);
    },
    get trailer() {
      return webHeaders(reply.trailer);
    },
  };
}

/** Writes every message of `messages` with backpressure, then ends the request; stops early once the call is over. */
async function sendAll<I extends DescMessage>(stream: ClientHttp2Stream, messages: AsyncIterable<MessageInitShape<I>>, frames: (message: MessageInitShape<I>) => Uint8Array[]): Promise<void> {
  for await (const message of messages) {
    // The service answered (or the call failed) before the end: leaving the loop closes the source.
    if (stream.closed || stream.destroyed) return;
    let flowing = true;
    for (const frame of frames(message)) flowing = stream.write(frame);
    if (!flowing) await drained(stream);
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

/**
 * How a request message goes on the wire. A message that is nothing but a
 * oneof of which the `chunk` bytes field is set (an upload's file bytes) is
 * framed by hand: a few header bytes, then the chunk itself, uncopied. That is
 * byte for byte what `toBinary` writes for it (a test holds the two equal);
 * every other message goes through `toBinary`.
 */
export function framer<I extends DescMessage>(schema: I): (message: MessageInitShape<I>) => Uint8Array[] {
  const chunkField = schema.fields.find((field) => field.localName === 'chunk' && field.fieldKind === 'scalar' && field.scalar === ScalarType.BYTES && field.oneof !== undefined);
  const oneof = chunkField?.oneof;
  const onlyTheOneof = oneof !== undefined && schema.fields.every((field) => field.oneof === oneof);
  return (message) => {
    if (onlyTheOneof && !isMessage(message)) {
      const selected = (message as Record<string, { case?: string; value?: unknown } | undefined>)[oneof.localName];
      if (selected?.case === 'chunk' && selected.value instanceof Uint8Array) return chunkFrames(chunkField!.number, selected.value);
    }
    return [envelope(toBinary(schema, isMessage(message, schema) ? message : create(schema, message)))];
  };
}

/** The 5-byte gRPC prefix, the field's key and length, then the bytes. */
function chunkFrames(fieldNumber: number, bytes: Uint8Array): Uint8Array[] {
  const key = varint((fieldNumber << 3) | 2);
  const length = varint(bytes.byteLength);
  const head = Buffer.allocUnsafe(5 + key.length + length.length);
  head[0] = 0;
  head.writeUInt32BE(key.length + length.length + bytes.byteLength, 1);
  head.set(key, 5);
  head.set(length, 5 + key.length);
  return [head, bytes];
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return bytes;
}

function requestHeaders(header: HeadersInit | undefined, timeoutMs: number | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'content-type': 'application/grpc+proto', te: 'trailers' };
  if (header) {
    const entries = header instanceof Headers || Array.isArray(header) ? header : Object.entries(header);
    for (const [key, value] of entries) headers[key.toLowerCase()] = value;
  }
  if (timeoutMs !== undefined && timeoutMs > 0) headers['grpc-timeout'] = `${timeoutMs}m`;
  return headers;
}

function envelope(payload: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(5 + payload.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(payload.byteLength, 1);
  framed.set(payload, 5);
  return framed;
}

interface Reply {
  readonly header: IncomingHttpHeaders;
  readonly trailer: IncomingHttpHeaders;
  readonly message: Uint8Array;
}

/** Sends the request body; `fail` ends the call with an error found while sending. */
type Send = (stream: ClientHttp2Stream, fail: (error: ConnectError) => void) => void;

function exchange(
  stream: ClientHttp2Stream,
  sessionManager: Http2SessionManager,
  send: Send,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  readMaxBytes: number,
): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    let header: IncomingHttpHeaders = {};
    let trailer: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;
    /** The length the reply's message prefix announces. */
    let promised: number | undefined;
    let settled = false;

    const finish = (error: ConnectError | undefined, reply?: Reply): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        if (!stream.closed) stream.close(error.code === Code.Canceled || error.code === Code.DeadlineExceeded ? h2.NGHTTP2_CANCEL : h2.NGHTTP2_INTERNAL_ERROR);
        reject(error);
      } else resolve(reply!);
    };
    const onAbort = (): void => finish(ConnectError.from(signal?.reason, Code.Canceled));
    const timer = timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => finish(new ConnectError('the operation timed out', Code.DeadlineExceeded)), timeoutMs) : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });

    stream.on('response', (received) => (header = received));
    stream.on('trailers', (received) => (trailer = received));
    stream.on('data', (chunk: Buffer) => {
      sessionManager.notifyResponseByteRead(stream);
      chunks.push(chunk);
      received += chunk.byteLength;
      if (promised === undefined && received >= 5) {
        promised = (chunks.length === 1 ? chunk : Buffer.concat(chunks)).readUInt32BE(1);
        if (promised > readMaxBytes) finish(new ConnectError(`message size ${promised} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
      }
      // More than one message is a protocol error; stop buffering at once.
      if (promised !== undefined && received > 5 + promised) finish(new ConnectError('protocol error: received extra output message', Code.Unimplemented));
    });
    const answered = (): boolean => trailer['grpc-status'] !== undefined || header['grpc-status'] !== undefined;
    const concludeFromReply = (): void => {
      const outcome = parseReply(header, trailer, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (outcome instanceof ConnectError) finish(outcome);
      else finish(undefined, { header, trailer, message: outcome });
    };
    // A write failing because the service already answered (an upload refused early) yields to that answer.
    stream.on('error', (error) => (answered() ? concludeFromReply() : finish(fromNodeReason(error))));
    stream.on('close', () => {
      if (settled) return;
      const reset = answered() ? undefined : resetError(stream.rstCode);
      if (reset) return finish(reset);
      concludeFromReply();
    });
    send(stream, (error) => (answered() ? concludeFromReply() : finish(error)));
  });
}

/**
 * The one message of a successful call, or the call's error. The common case
 * (HTTP 200, gRPC content, status 0 in the trailers) is read from Node's
 * headers directly; anything else goes through Connect's own checks, so errors
 * carry the codes, messages, details and metadata Connect's transport gives.
 */
function parseReply(header: IncomingHttpHeaders, trailer: IncomingHttpHeaders, body: Buffer): Uint8Array | ConnectError {
  const plainSuccess =
    Number(header[':status']) === 200 && GRPC_CONTENT_TYPE.test(String(header['content-type'] ?? '')) && header['grpc-status'] === undefined && trailer['grpc-status'] === '0' && trailer['grpc-status-details-bin'] === undefined;
  try {
    if (!plainSuccess) {
      const headers = webHeaders(header);
      const { headerError } = validateResponse(Number(header[':status']), headers);
      validateTrailer(webHeaders(trailer), headers);
      // A trailers-only response: the status came with the headers.
      if (headerError) return headerError;
    }
    return onlyMessage(body);
  } catch (error) {
    return ConnectError.from(error);
  }
}

const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+proto)?(?:;|$)/i;

/** The payload of the single length-prefixed message a unary reply must hold. */
function onlyMessage(body: Buffer): Uint8Array {
  if (body.byteLength === 0) throw new ConnectError('protocol error: missing output message for unary method', Code.Unimplemented);
  if (body.byteLength < 5 || body.byteLength < 5 + body.readUInt32BE(1)) throw new ConnectError('protocol error: promised a message it did not send', Code.Internal);
  if (body.byteLength > 5 + body.readUInt32BE(1)) throw new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented);
  if ((body[0]! & 0b1) === 1) throw new ConnectError('protocol error: received a compressed message, none was accepted', Code.Internal);
  return body.subarray(5);
}

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const web = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (key.startsWith(':') || value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) web.append(key, item);
    else web.set(key, String(value));
  }
  return web;
}

/** As Connect maps HTTP/2 resets (STREAM_CLOSED deliberately not). */
function resetError(rstCode: number | undefined): ConnectError | undefined {
  const message = `http/2 stream closed with error code 0x${(rstCode ?? 0).toString(16)}`;
  switch (rstCode) {
    case h2.NGHTTP2_PROTOCOL_ERROR:
    case h2.NGHTTP2_INTERNAL_ERROR:
    case h2.NGHTTP2_FLOW_CONTROL_ERROR:
    case h2.NGHTTP2_SETTINGS_TIMEOUT:
    case h2.NGHTTP2_FRAME_SIZE_ERROR:
    case h2.NGHTTP2_COMPRESSION_ERROR:
    case h2.NGHTTP2_CONNECT_ERROR:
      return new ConnectError(message, Code.Internal);
    case h2.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case h2.NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case h2.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case h2.NGHTTP2_INADEQUATE_SECURITY:
    case h2.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return undefined;
  }
}

/** As Connect maps Node's errors: refused or unresolvable → unavailable, a torn-down stream → aborted. */
function fromNodeReason(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  const codes = new Set<string>();
  for (let e: unknown = reason; e instanceof Error && codes.size < 8; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.add(code);
    if (!('cause' in e)) break;
  }
  const has = (...names: string[]): boolean => names.some((name) => codes.has(name));
  const code = has('ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_DESTROYED', 'ERR_HTTP2_INVALID_STREAM', 'ECONNRESET')
    ? Code.Aborted
    : has('ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED')
      ? Code.Unavailable
      : Code.Internal;
  const error = ConnectError.from(reason, code);
  if (error !== reason) error.cause = reason;
  return error;
}
