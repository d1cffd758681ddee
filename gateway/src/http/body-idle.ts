import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemTime, type TimeSource } from '@switchyard/core';

/**
 * Watches a request body for a client that stops sending: when no byte
 * arrives for `idleMs` while the gateway is waiting for one, `onIdle` runs
 * (once). "Waiting" means the request's buffer has room: while a consumer is
 * slow (the service applying backpressure) the buffer fills, Node stops
 * reading the socket, and that time is ours, not the client's. Progress is
 * read from the socket's byte counter, polled, because listening to `data`
 * would start the body flowing before its handler is ready. Stops when the
 * body is complete, the response is finished, or the request closes. The
 * clock and the polls run on `time`.
 */
export function watchBodyIdle(
  req: IncomingMessage,
  res: ServerResponse,
  idleMs: number,
  onIdle: () => void,
  time: TimeSource = systemTime,
): void {
  if (idleMs <= 0 || !hasBody(req) || req.complete) return;
  const socket = req.socket;
  let lastBytes = socket.bytesRead;
  const now = (): number => time.now().getTime();
  let idleSince = now();
  const tick = time.setInterval(
    () => {
      if (req.complete || res.writableFinished || req.destroyed) return stop();
      const bytes = socket.bytesRead;
      const waitingForClient = req.readableLength < req.readableHighWaterMark && !socket.isPaused();
      if (bytes !== lastBytes || !waitingForClient) {
        lastBytes = bytes;
        idleSince = now();
        return;
      }
      if (now() - idleSince >= idleMs) {
        stop();
        onIdle();
      }
    },
    Math.min(1_000, Math.max(25, Math.floor(idleMs / 10))),
  );
  tick.unref?.();
  const stop = (): void => {
    time.clearInterval(tick);
    req.off('end', stop).off('close', stop);
    res.off('finish', stop);
  };
  req.once('end', stop).once('close', stop);
  res.once('finish', stop);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
