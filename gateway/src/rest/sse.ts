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

/** Unsent text of a burst written as soon as it reaches this size. */
const SSE_FLUSH_BYTES = 64 * 1024;

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
  // Events are joined and written together: those of one turn of the event loop at its end (nextTick), and a long
  // burst (a revision of 5,000 routes read at once) every SSE_FLUSH_BYTES, not one write each (route-apply-5000).
  let unsent = '';
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    // Nothing after the end: a flush queued before a client went away finds the response ended.
    if (unsent === '' || res.writableEnded) return;
    const text = unsent;
    unsent = '';
    res.write(text);
  };
  try {
    for await (const event of events) {
      if (!started) {
        res.writeHead(200, SSE_HEADERS);
        res.write(`retry: ${RETRY_MS}\n\n`);
        started = true;
      }
      unsent += encode(event);
      // A long burst runs as one chain of promise reactions, which never yields to nextTick (where Node uncorks
      // the response's socket): every SSE_FLUSH_BYTES, write and let the event loop turn, so the client reads
      // the start of a burst while the rest is still being made.
      if (unsent.length >= SSE_FLUSH_BYTES) {
        flush();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (!flushQueued) {
        flushQueued = true;
        process.nextTick(flush);
      }
      // Past the socket's high-water mark a write is still taken; the watch waits only past SSE_BUFFER_BYTES, so a
      // burst (a 5,000-route revision, about 1.5 MB) is not sent in 16 KiB steps each waiting for a drain (route-apply-5000).
      if (res.writableLength + unsent.length > SSE_BUFFER_BYTES) {
        flush();
        if (res.writableLength > SSE_BUFFER_BYTES) await once(res, 'drain', { signal });
      }
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
