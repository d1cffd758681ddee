import type { IncomingMessage, ServerResponse } from 'node:http';

/** After answering early, at most this much of an unread body is read and dropped before the connection is cut. */
export const LINGER_BYTES = 1024 * 1024;
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
 * of the client's buffer before it reads it.
 */
export function lingerAfterEarlyResponse(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || res.headersSent) return;
  res.once('finish', () => {
    if (req.complete) return;
    let drained = 0;
    const cut = (): void => {
      clearTimeout(timer);
      req.socket.destroy();
    };
    const timer = setTimeout(cut, LINGER_MS).unref();
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    req.once('end', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
    req.resume();
  });
}
