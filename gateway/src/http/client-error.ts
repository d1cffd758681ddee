import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { systemTime, type TimeSource } from '@switchyard/core';
import { HEADERS_TOO_LARGE } from '../http-status.js';
import { ApiError, invalidRequest, methodNotAllowed, requestTimeout } from './api-error.js';
import { sendError } from './respond.js';

/**
 * Answers what Node's HTTP parser and its timers report on a connection
 * ('clientError': a request line or headers that do not parse or are too
 * large, headers or a whole request not received in time) in the contract's
 * JSON shape; Node's default is a bare status line. When a response to the
 * request is already under way (`inFlight`), it is answered through that
 * response; otherwise a raw one goes on the socket. The connection is closed
 * either way: after such an error its byte stream cannot be trusted (cut on
 * `time` if the client does not close it).
 */
export function answerClientErrors(
  server: Server,
  inFlight: (socket: Socket) => ServerResponse | undefined,
  time: TimeSource = systemTime,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    socket.on('error', () => undefined);
    const answer = answerFor(error);
    const res = inFlight(socket);
    if (res !== undefined && !res.headersSent) return answerThenDestroy(res.req, res, answer);
    if (error.code === 'ECONNRESET' || !socket.writable || (res?.headersSent ?? false)) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, answer, time);
  });
}

/**
 * Answers the CONNECT method (a request to open a tunnel, which a gateway
 * never does) with the contract's 405. Node hands such a request to the
 * 'connect' event, and without a listener drops the connection unanswered.
 */
export function refuseConnectMethod(server: Server, time: TimeSource = systemTime): void {
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => undefined);
    answerOnSocket(socket, methodNotAllowed('CONNECT', ALLOWED_METHODS), time, { allow: ALLOWED_METHODS.join(', ') });
  });
}

/** Every method some endpoint of the gateway takes. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];

/** How long a client has to read a raw answer and close its side before the connection is cut. */
export const RAW_ANSWER_GRACE_MS = 1_000;

/** A response written straight on the socket (no ServerResponse exists), then the connection closed. */
function answerOnSocket(socket: Socket, answer: ApiError, time: TimeSource, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(answer.body());
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\n${extra}` +
      `connection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const cut = time.setTimeout(() => socket.destroy(), RAW_ANSWER_GRACE_MS);
  cut.unref?.();
  socket.once('close', () => time.clearTimeout(cut));
}

/**
 * Answers a request whose body will not be read to its end (the client is too
 * slow), then destroys the request. Destroying the request, not just its
 * socket, matters: once a response has finished, Node no longer tells the
 * request that its socket closed, so a handler still reading the body (a
 * multipart upload streaming to the service) would wait forever and keep its
 * call to the service, and the service its temp file, open.
 */
export function answerThenDestroy(req: IncomingMessage, res: ServerResponse, answer: ApiError): void {
  if (res.headersSent) {
    req.destroy();
    return;
  }
  res.once('finish', () => req.destroy());
  res.once('close', () => req.destroy());
  sendError(res, answer, { connection: 'close' });
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function answerFor(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout('the request (headers, or headers and body) was not received in time');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        HEADERS_TOO_LARGE.code,
        'the request headers are too large',
        [{ reason: 'request headers are limited to 16 KiB in all' }],
        {
          status: HEADERS_TOO_LARGE.status,
        },
      );
    default:
      return invalidRequest('request', 'is not a valid HTTP/1.1 request');
  }
}
