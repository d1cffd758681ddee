import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { overloaded } from './api-error.js';

/** How long a refused connection is kept open for its answer to be read before it is cut. */
const REFUSAL_LINGER_MS = 1_000;

export interface ConnectionLimit {
  /** Connections open now (refused ones included until they close). */
  open(): number;
  /** Whether this connection was refused: its requests must not be served. */
  refused(socket: Socket): boolean;
}

/**
 * Bounds the connections a server keeps open. A connection beyond `max()` is
 * answered at once with a 503 in the contract's JSON shape, `Retry-After: 1`
 * and `Connection: close`, then closed: the client learns why instead of
 * seeing a reset (Node's own `maxConnections` just drops the socket), and a
 * flood of connections costs one short-lived socket each. The answer is sent
 * before the request is read, which HTTP/1.1 clients accept as the answer to
 * the request they send; the socket is half-closed first so unread request
 * bytes cannot reset the answer away, and cut after REFUSAL_LINGER_MS.
 */
export function limitConnections(server: Server, max: () => number): ConnectionLimit {
  let open = 0;
  const refusedSockets = new WeakSet<Socket>();
  // Before Node's own listener: a refused socket must be marked before its first request is parsed.
  server.prependListener('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => (open -= 1));
    if (open <= max()) return;
    refusedSockets.add(socket);
    socket.on('error', () => undefined);
    const error = overloaded(`too many connections (the limit is ${max()}); try again shortly`);
    const body = JSON.stringify(error.body());
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\nretry-after: ${error.retryAfterSeconds ?? 1}\r\n` +
        `connection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  });
  return { open: () => open, refused: (socket) => refusedSockets.has(socket) };
}
