import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemTime, type TimeSource } from '@switchyard/core';
import { dialableHost, GATEWAY_DEFAULTS, urlHost, type ClientLimits } from '../config.js';
import { ApiError, overloaded, requestTimeout } from './api-error.js';
import { watchBodyIdle } from './body-idle.js';
import { answerClientErrors, answerThenDestroy, refuseConnectMethod } from './client-error.js';
import { limitConnections } from './connection-limit.js';
import { sendError } from './respond.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Connections idle this long (no bytes either way) are dropped; a flowing upload is never idle. */
const IDLE_SOCKET_MS = 120_000;
/** How often Node checks the headers and request timeouts: they fire at most this late. */
const TIMEOUT_CHECK_MS = 250;

/** A bound HTTP server whose handler can be attached after binding (to learn a PORT=0 port first). */
export interface HttpListener {
  readonly port: number;
  /** `http://host:port`, dialable (a wildcard bind address becomes loopback). */
  readonly url: string;
  setHandler(handler: Handler): void;
  /** Applies the client limits (timeouts, connection bound); until then the defaults hold. */
  setLimits(limits: ClientLimits): void;
  /** Connections open now. */
  openConnections(): number;
  /** Tells `listener` of every connection refused at MAX_CONNECTIONS (metrics). */
  onConnectionRefused(listener: () => void): void;
  /**
   * Stops accepting connections, lets requests in flight finish (a connection
   * closes once the client has read its response), and after `timeoutMs` cuts
   * what is left, telling `onDeadline` how many connections it cut.
   * Resolves when no connection remains. Idempotent.
   */
  close(timeoutMs: number, onDeadline?: (cut: number) => void): Promise<void>;
}

/** Binds the listener; its timers (body idleness, refusal grace, the close deadline, raw answers) run on `time`. */
export async function listen(host: string, port: number, time: TimeSource = systemTime): Promise<HttpListener> {
  let handler: Handler = (_req, res) => sendError(res, new ApiError('unavailable', 'starting up; try again in a moment'));
  let closing: Promise<void> | undefined;
  let limits: ClientLimits = GATEWAY_DEFAULTS.clientLimits;
  let onRefused: () => void = () => {};
  const inFlight = new Set<ServerResponse>();
  const responseOf = new WeakMap<Socket, ServerResponse>();
  // A keep-alive connection whose response ends while the server closes is half-closed (its FIN
  // follows the bytes) and kept until the client closes its end, which it does once it has read
  // them all. Destroying it at once would leave those bytes to the kernel, and a process that
  // exits just after (a container, whose network goes with it) can lose them. The close deadline
  // still holds. (A response sent with `connection: close` is ended by Node itself.)
  const lingerThenClose = (socket: Socket): void => {
    if (!socket.destroyed && !socket.writableEnded) socket.end();
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (connections.refused(req.socket)) {
      onRefused();
      return sendError(res, overloaded(`too many connections (the limit is ${limits.maxConnections}); try again shortly`), {
        connection: 'close',
      });
    }
    if (closing) res.setHeader('connection', 'close');
    inFlight.add(res);
    responseOf.set(req.socket, res);
    watchBodyIdle(
      req,
      res,
      limits.bodyIdleTimeoutMs,
      () =>
        answerThenDestroy(
          req,
          res,
          requestTimeout(
            `no request body bytes arrived for ${limits.bodyIdleTimeoutMs} ms; the request was cut off (an upload stored nothing, a resumable upload kept the bytes that arrived)`,
          ),
        ),
      time,
    );
    res.once('close', () => {
      inFlight.delete(res);
      if (responseOf.get(req.socket) !== res) return;
      responseOf.delete(req.socket);
      if (closing) lingerThenClose(req.socket);
    });
    try {
      handler(req, res);
    } catch (error) {
      // Handlers catch their own failures; this is the last line that keeps a bug from crashing the process.
      sendError(res, new ApiError('internal', 'internal error', [], { cause: error }));
    }
  };
  // Timeouts are set by setLimits (Node reads them at each check); only the check interval is fixed at creation.
  const server: Server = createServer({ requestTimeout: 0, connectionsCheckingInterval: TIMEOUT_CHECK_MS }, onRequest);
  // An Expect other than 100-continue: Node's default is a bare 417 without the contract's body. RFC 9110 §10.1.1
  // lets a server ignore an expectation it does not know, so the request is served like any other.
  server.on('checkExpectation', onRequest);
  server.timeout = IDLE_SOCKET_MS;
  const connections = limitConnections(server, () => limits.maxConnections, time);
  answerClientErrors(server, (socket) => responseOf.get(socket), time);
  refuseConnectMethod(server, time);
  const applyTimeouts = (): void => {
    server.headersTimeout = limits.headersTimeoutMs;
    server.requestTimeout = limits.requestTimeoutMs;
  };
  applyTimeouts();
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  const bound = (server.address() as AddressInfo).port;

  return {
    port: bound,
    url: `http://${urlHost(dialableHost(host))}:${bound}`,
    setHandler(next) {
      handler = next;
    },
    setLimits(next) {
      limits = next;
      applyTimeouts();
    },
    openConnections: () => connections.open(),
    onConnectionRefused(listener) {
      onRefused = listener;
    },
    close(timeoutMs, onDeadline) {
      closing ??= new Promise<void>((resolve) => {
        const deadline = time.setTimeout(() => {
          onDeadline?.(connections.open());
          server.closeAllConnections();
        }, timeoutMs);
        deadline.unref?.();
        server.close(() => {
          time.clearTimeout(deadline);
          resolve();
        });
        // server.close() has dropped the idle keep-alive connections; busy ones close after their response.
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      });
      return closing;
    },
  };
}
