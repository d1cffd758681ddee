import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { toApiError } from '../http/api-error.js';

/** Headers of an event stream: never cached or buffered by a proxy. */
const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
});

/** What a watch may hold unsent for a client that reads slowly before it waits for the client (per stream). */
export const SSE_BUFFER_BYTES = 1024 * 1024;

/** How long a client waits before reconnecting after the stream ends (the SSE `retry` field). */
const RETRY_MS = 1_000;

/** One Server-Sent Event: its name, its `id:` (what `Last-Event-ID` resumes from) when it has one, its data as JSON. */
export function sseFrame(event: string, id: number | undefined, data: unknown): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Relays a watch to an HTTP response as Server-Sent Events, each event as
 * `encode` writes it. The status and headers go once the first event has come
 * (so a refused token or a bad revision is still an ordinary JSON error); a
 * failure after that is an `error` event, then the end of the stream, and the
 * client resumes.
 */
export async function relayEvents<Event>(
  events: AsyncIterable<Event>,
  encode: (event: Event) => string,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  let started = false;
  // The events that come in one turn of the event loop (a revision of 5,000 routes read at once) go out as one
  // string in one write, not one write each: joined here and written once the turn's work is done (route-apply-5000).
  let unsent = '';
  let flushQueued = false;
  const flush = (): boolean => {
    flushQueued = false;
    if (unsent === '') return true;
    const text = unsent;
    unsent = '';
    return res.write(text);
  };
  try {
    for await (const event of events) {
      if (!started) {
        res.writeHead(200, SSE_HEADERS);
        res.write(`retry: ${RETRY_MS}\n\n`);
        started = true;
      }
      unsent += encode(event);
      if (!flushQueued) {
        flushQueued = true;
        process.nextTick(flush);
      }
      // Past the socket's high-water mark a write is still taken; the watch waits only past SSE_BUFFER_BYTES, so a
      // burst (a 5,000-route revision, about 1.5 MB) is not sent in 16 KiB steps each waiting for a drain (route-apply-5000).
      if (res.writableLength + unsent.length > SSE_BUFFER_BYTES && !flush()) await once(res, 'drain', { signal });
    }
  } catch (error) {
    if (signal.aborted) return void res.end();
    if (!started) throw error;
    flush();
    const failure = toApiError(error);
    res.write(sseFrame('error', undefined, { code: failure.code, message: failure.message }));
  }
  flush();
  res.end();
}
