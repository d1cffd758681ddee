import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { systemTime, type TimeSource } from '@switchyard/core';

/** A refused connection has this long to send its request head and read its 503 before it is cut. */
export const REFUSAL_GRACE_MS = 2_000;

export interface ConnectionLimit {
  /** Connections open now (refused ones included until they close). */
  open(): number;
  /** Whether this connection is over the bound: its request gets a 503 instead of being served. */
  refused(socket: Socket): boolean;
}

/**
 * Bounds the connections a server serves. A connection beyond `max()` is
 * marked refused: its first request is answered 503 `unavailable` with
 * `Retry-After` and `Connection: close` (by the listener, in the contract's
 * JSON shape, once the request head is in, so any HTTP client reads it as the
 * answer to its request), and it is cut after REFUSAL_GRACE_MS whatever it
 * did. Node's own `maxConnections` would drop the socket unanswered. Past
 * twice the bound, connections are dropped at once (`maxConnections`), so a
 * flood costs at most that many sockets, each for at most the grace period
 * (on `time`).
 */
export function limitConnections(server: Server, max: () => number, time: TimeSource = systemTime): ConnectionLimit {
  let open = 0;
  const refusedSockets = new WeakSet<Socket>();
  const applyHardCap = (): void => {
    server.maxConnections = max() * 2;
  };
  applyHardCap();
  // Before Node's own listener: a refused socket must be marked before its first request is parsed.
  server.prependListener('connection', (socket: Socket) => {
    applyHardCap();
    open += 1;
    socket.once('close', () => (open -= 1));
    if (open <= max()) return;
    refusedSockets.add(socket);
    socket.on('error', () => undefined);
    const cut = time.setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS);
    cut.unref?.();
    socket.once('close', () => time.clearTimeout(cut));
  });
  return { open: () => open, refused: (socket) => refusedSockets.has(socket) };
}
