import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { systemTime, type TimeSource } from '@switchyard/core';

/**
 * After answering early, at most this much of an unread body is read and
 * dropped before the connection is cut. A client writing fast has a few MiB
 * in socket buffers before it reads the answer; cut short, its kernel may
 * drop the answer with the reset (found by test/hardening/limit-refusals: a
 * 7 MB upload refused at once over a 2 MiB limit, 1 time in ~100 at 1 MiB).
 * nginx's lingering close bounds time, not bytes; LINGER_MS still bounds a
 * slow client here.
 */
export const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * For an answer sent before the request body was read (a refusal of an upload
 * that is too large, unauthorized or malformed): once the response is out,
 * the rest of the body is read and dropped so the connection can serve the
 * next request, but only up to LINGER_BYTES or LINGER_MS; past that the
 * connection is cut. A client still sending has had the answer by then, and a
 * huge or endless body costs the gateway next to nothing (nginx's "lingering
 * close"). `Connection: close` is not used: Node destroys such a socket right
 * after the response, and a reset with unread data can wipe the answer out
 * of the client's buffer before it reads it. The linger time runs on `time`.
 */
export function lingerAfterEarlyResponse(
  req: IncomingMessage,
  res: ServerResponse,
  lingerMs = LINGER_MS,
  time: TimeSource = systemTime,
): void {
  // Taken now: by the time the timer fires, Node may have let go of it. Already let go (a client gone): nothing to drain.
  const socket = req.socket as Socket | null;
  if (req.complete || res.headersSent || socket === null) return;
  res.once('finish', () => {
    if (req.complete) return;
    // A connection Node will not keep (the client sent `Connection: close`) has been half-closed by now, and Node
    // destroys it once its FIN is out: with the body still coming, that is the reset that can wipe out the answer.
    // Only the destroy is taken back; the lingering below ends the connection (RFC 9112 §9.6, closing in stages).
    socket.removeListener('finish', socket.destroy);
    let drained = 0;
    const cut = (): void => {
      time.clearTimeout(timer);
      socket.destroy();
    };
    const timer = time.setTimeout(cut, lingerMs);
    timer.unref?.();
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    req.once('end', () => {
      time.clearTimeout(timer);
      // Half-closed: the client has sent all it will, so the connection is done.
      if (socket.writableEnded) socket.destroy();
    });
    req.once('close', () => time.clearTimeout(timer));
    req.resume();
  });
}
