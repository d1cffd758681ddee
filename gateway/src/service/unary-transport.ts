import { constants as h2, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { validateResponse, validateTrailer } from '@connectrpc/connect/protocol-grpc';
import type { Http2SessionManager } from '@connectrpc/connect-node';

/**
 * Connect's `Transport` with a direct unary path: one HTTP/2 stream per call
 * on the session manager's connection, the message framed and parsed in place.
 * Connect's own transport runs every unary call through its streaming machinery
 * (async iterables, web `Headers`, linked `AbortController`s, a `ConnectError`
 * per successful call), which the gateway's profile showed costing twice what
 * grpc-js costs per call. Streaming calls keep Connect's transport.
 *
 * The semantics follow Connect's gRPC transport: the same error codes for
 * deadlines, cancellation, refused connections and HTTP/2 resets, and the
 * service's error details decoded from `grpc-status-details-bin`.
 */
export function withDirectUnary(transport: Transport, sessionManager: Http2SessionManager, readMaxBytes: number): Transport {
  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
  ): Promise<UnaryResponse<I, O>> {
    if (signal?.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
    const payload = toBinary(method.input, isMessage(input, method.input) ? input : create(method.input, input));
    const headers = requestHeaders(header, timeoutMs);
    const stream = await sessionManager.request('POST', `/${method.parent.typeName}/${method.name}`, headers, {}).catch((reason: unknown) => {
      throw fromNodeReason(reason);
    });
    const reply = await exchange(stream, sessionManager, envelope(payload), signal, timeoutMs, readMaxBytes);
    return {
      stream: false,
      service: method.parent,
      method,
      message: fromBinary(method.output, reply.message),
      get header() {
        return webHeaders(reply.header);
      },
      get trailer() {
        return webHeaders(reply.trailer);
      },
    };
  }
  return { unary, stream: transport.stream.bind(transport) };
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

function exchange(
  stream: ClientHttp2Stream,
  sessionManager: Http2SessionManager,
  body: Buffer,
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
      if (promised !== undefined && received > 5 + promised) finish(new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented));
    });
    stream.on('error', (error) => finish(fromNodeReason(error)));
    stream.on('close', () => {
      if (settled) return;
      const reset = resetError(stream.rstCode);
      if (reset) return finish(reset);
      const outcome = parseReply(header, trailer, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (outcome instanceof ConnectError) finish(outcome);
      else finish(undefined, { header, trailer, message: outcome });
    });
    stream.end(body);
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
