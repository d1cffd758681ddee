import { constants as h2, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { validateResponseWithCompression, validateTrailer } from '@connectrpc/connect/protocol-grpc';
import type { Http2SessionManager } from '@connectrpc/connect-node';
import { systemTime, type Timers } from '@switchyard/core';
import { fromNodeReason, resetError } from './grpc-errors.js';

/** What a finished call brought back: its headers, its trailers and its one message. */
export interface Reply {
  readonly header: IncomingHttpHeaders;
  readonly trailer: IncomingHttpHeaders;
  readonly message: Uint8Array;
}

/** Sends the request body; `fail` ends the call with an error met while sending. */
export type Send = (stream: ClientHttp2Stream, fail: (error: ConnectError) => void) => void;

export interface ExchangeOptions {
  readonly sessionManager: Http2SessionManager;
  /** `/<package.Service>/<Method>` */
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
  readonly send: Send;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  readonly readMaxBytes: number;
  /** Where the deadline is scheduled; the system's timers by default. */
  readonly time?: Timers | undefined;
}

/** Longer than this, a Node timer fires at once; such deadlines are left to the service (grpc-timeout). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One gRPC call with a single reply (unary or client streaming) on its own
 * HTTP/2 stream. The deadline and the caller's signal count from the start,
 * connecting included. The call ends as soon as the service has answered (the
 * response's end), even while the request is still being sent: an upload the
 * service refused stops there, and its error is the call's.
 */
export function exchange(options: ExchangeOptions): Promise<Reply> {
  const { signal, timeoutMs, readMaxBytes, time = systemTime } = options;
  if (signal?.aborted) return Promise.reject(ConnectError.from(signal.reason, Code.Canceled));
  return new Promise<Reply>((resolve, reject) => {
    let stream: ClientHttp2Stream | undefined;
    let header: IncomingHttpHeaders = {};
    let trailer: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;
    /** The length the reply's message prefix announces. */
    let promised: number | undefined;
    /** False once the response headers say the body is not gRPC (a proxy's error page): it is then not parsed. */
    let grpcBody = true;
    /** The service has sent everything it will send. */
    let responseEnded = false;
    let settled = false;

    const finish = (error: ConnectError | undefined, reply?: Reply): void => {
      if (settled) return;
      settled = true;
      time.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // A stream still sending after the answer, or abandoned before it, is cancelled; one finished both ways closes
      // by itself. (Resetting finished streams too would trip the service's HTTP/2 rapid-reset guard, which then
      // drops the whole connection, every call on it included.)
      if (stream && !stream.closed && !(responseEnded && stream.writableEnded)) stream.close(h2.NGHTTP2_CANCEL);
      if (error) reject(error);
      else resolve(reply!);
    };
    const onAbort = (): void => finish(ConnectError.from(signal?.reason, Code.Canceled));
    const timer =
      timeoutMs !== undefined && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
        ? time.setTimeout(() => finish(new ConnectError('the operation timed out', Code.DeadlineExceeded)), timeoutMs)
        : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });

    const answered = (): boolean => trailer['grpc-status'] !== undefined || header['grpc-status'] !== undefined;
    const conclude = (): void => {
      const outcome = parseReply(header, trailer, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (outcome instanceof ConnectError) finish(outcome);
      else finish(undefined, { header, trailer, message: outcome });
    };

    // A stream ended by its connection going away (the service's process died) has no answer: not the service's error.
    const settle = (opened: ClientHttp2Stream): void => {
      if (!answered() && (opened.session === undefined || opened.session.destroyed || opened.session.closed)) finish(connectionLost());
      else conclude();
    };

    const listen = (opened: ClientHttp2Stream): void => {
      opened.on('response', (headers) => {
        header = headers;
        grpcBody = Number(headers[':status']) === 200 && GRPC_CONTENT_TYPE.test(String(headers['content-type'] ?? ''));
      });
      opened.on('trailers', (trailers: IncomingHttpHeaders) => (trailer = trailers));
      opened.on('data', (chunk: Buffer) => {
        options.sessionManager.notifyResponseByteRead(opened);
        if (!grpcBody || settled) return;
        chunks.push(chunk);
        received += chunk.byteLength;
        if (promised === undefined && received >= 5) {
          promised = (chunks.length === 1 ? chunk : Buffer.concat(chunks)).readUInt32BE(1);
          if (promised > readMaxBytes)
            finish(
              new ConnectError(`message size ${promised} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted),
            );
        }
        // More than one message is a protocol error; stop buffering at once.
        if (promised !== undefined && received > 5 + promised)
          finish(new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented));
      });
      // The service has sent all it will: the call is decided, whatever is still being sent.
      opened.on('end', () => {
        responseEnded = true;
        settle(opened);
      });
      // A write failing because the service already answered yields to that answer.
      opened.on('error', (error) => (answered() ? conclude() : finish(fromNodeReason(error))));
      opened.on('close', () => {
        if (settled) return;
        const reset = answered() ? undefined : resetError(opened.rstCode);
        if (reset) finish(reset);
        else settle(opened);
      });
    };

    options.sessionManager.request('POST', options.path, options.headers, {}).then(
      (opened) => {
        if (settled) return void opened.close(h2.NGHTTP2_CANCEL);
        stream = opened;
        listen(opened);
        options.send(opened, (error) => (answered() ? conclude() : finish(error)));
      },
      (reason: unknown) => finish(fromNodeReason(reason)),
    );
  });
}

function connectionLost(): ConnectError {
  return new ConnectError('the connection to the service closed before it answered', Code.Unavailable);
}

const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+proto)?(?:;|$)/i;

/**
 * The one message of a successful call, or the call's error. The common case
 * (HTTP 200, gRPC content, no encoding, status 0 in the trailers) is read from
 * Node's headers directly; anything else goes through Connect's own checks, so
 * errors carry the codes, messages, details and metadata Connect's transport gives.
 */
function parseReply(header: IncomingHttpHeaders, trailer: IncomingHttpHeaders, body: Buffer): Uint8Array | ConnectError {
  if (header[':status'] === undefined)
    return new ConnectError('protocol error: the stream closed before the service answered', Code.Unavailable);
  const status = Number(header[':status']);
  const encoding = header['grpc-encoding'];
  const plainSuccess =
    status === 200 &&
    GRPC_CONTENT_TYPE.test(String(header['content-type'] ?? '')) &&
    (encoding === undefined || encoding === 'identity') &&
    header['grpc-status'] === undefined &&
    trailer['grpc-status'] === '0' &&
    trailer['grpc-status-details-bin'] === undefined;
  try {
    if (plainSuccess) return onlyMessage(body, true);
    const headers = webHeaders(header);
    const { headerError } = validateResponseWithCompression([], status, headers);
    validateTrailer(webHeaders(trailer), headers);
    // A trailers-only answer: the status came with the headers.
    if (headerError) {
      if (body.byteLength > 0)
        return new ConnectError('protocol error: received output message for unary method with error status', Code.Unknown);
      return headerError;
    }
    return onlyMessage(body, trailer['grpc-status'] !== undefined);
  } catch (error) {
    return ConnectError.from(error);
  }
}

/** The payload of the single length-prefixed message a reply must hold. */
function onlyMessage(body: Buffer, statusInTrailers: boolean): Uint8Array {
  if (body.byteLength === 0)
    throw new ConnectError('protocol error: missing output message for unary method', statusInTrailers ? Code.Unimplemented : Code.Unknown);
  const length = body.byteLength < 5 ? Infinity : body.readUInt32BE(1);
  if (body.byteLength < 5 + length) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  if (body.byteLength > 5 + length)
    throw new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented);
  if ((body[0]! & 0b1) === 1) throw new ConnectError('received compressed envelope, but do not know how to decompress', Code.Internal);
  return body.subarray(5);
}

export function webHeaders(headers: IncomingHttpHeaders): Headers {
  const web = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (key.startsWith(':') || value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) web.append(key, item);
    else web.set(key, String(value));
  }
  return web;
}
