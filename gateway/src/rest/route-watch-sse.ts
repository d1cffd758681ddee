import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { RouteEvent } from '@switchyard/proto';
import { toApiError } from '../http/api-error.js';
import { routeView } from './views.js';

/** Headers of the event stream: never cached or buffered by a proxy. */
const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
});

/** How long a client waits before reconnecting after the stream ends (the SSE `retry` field). */
const RETRY_MS = 1_000;

/**
 * One watch event as Server-Sent Events text. Each change carries its
 * revision as `id:`, so a reconnecting EventSource resumes with
 * `Last-Event-ID`; the events of a snapshot carry none until `synced`, so a
 * client cut off mid-snapshot resumes with a fresh one rather than half a table.
 * Likewise, the changes of a revision before its last carry
 * `"moreInRevision": true` and no `id:`: a client applies the revision at the
 * change without the flag, and one cut off before it resumes with the whole
 * revision again.
 */
export function sseEncoder(): (event: RouteEvent) => string {
  let inSnapshot = false;
  return (event) => {
    const revision = Number(event.revision);
    const { case: kind, value } = event.event;
    switch (kind) {
      case 'reset':
        inSnapshot = true;
        return frame('reset', undefined, { revision });
      case 'upsert':
        return frame('upsert', inSnapshot || event.moreInRevision ? undefined : revision, {
          revision,
          route: routeView(value),
          ...more(event),
        });
      case 'deletedId':
        return frame('delete', event.moreInRevision ? undefined : revision, { revision, id: value, ...more(event) });
      case 'synced':
        inSnapshot = false;
        return frame('synced', revision, { revision });
      case 'heartbeat':
        return frame('heartbeat', undefined, { revision });
      default:
        return '';
    }
  };
}

/** `moreInRevision` only where it is true, so a revision of one change reads as before. */
function more(event: RouteEvent): { moreInRevision?: true } {
  return event.moreInRevision ? { moreInRevision: true } : {};
}

function frame(event: string, id: number | undefined, data: unknown): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Relays a watch to an HTTP response as Server-Sent Events. The status and
 * headers go once the first event has come (so a refused token or a bad
 * revision is still an ordinary JSON error); a failure after that is an
 * `error` event, then the end of the stream, and the client resumes.
 */
export async function relayWatch(events: AsyncIterable<RouteEvent>, res: ServerResponse, signal: AbortSignal): Promise<void> {
  let started = false;
  const encode = sseEncoder();
  try {
    for await (const event of events) {
      if (!started) {
        res.writeHead(200, SSE_HEADERS);
        res.write(`retry: ${RETRY_MS}\n\n`);
        started = true;
      }
      if (!res.write(encode(event))) await once(res, 'drain', { signal });
    }
  } catch (error) {
    if (signal.aborted) return void res.end();
    if (!started) throw error;
    const failure = toApiError(error);
    res.write(`event: error\ndata: ${JSON.stringify({ code: failure.code, message: failure.message })}\n\n`);
  }
  res.end();
}
