import type { ServerResponse } from 'node:http';
import type { RouteEvent } from '@switchyard/proto';
import { relayEvents, sseFrame } from './sse.js';
import { routeView } from './views.js';

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
        return sseFrame('reset', undefined, { revision });
      case 'upsert':
        // `moreInRevision` only where true, so a revision of one change reads as before; literals, not spreads (route-apply-5000).
        if (event.moreInRevision) return sseFrame('upsert', undefined, { revision, route: routeView(value), moreInRevision: true });
        return sseFrame('upsert', inSnapshot ? undefined : revision, { revision, route: routeView(value) });
      case 'deletedId':
        if (event.moreInRevision) return sseFrame('delete', undefined, { revision, id: value, moreInRevision: true });
        return sseFrame('delete', revision, { revision, id: value });
      case 'synced':
        inSnapshot = false;
        return sseFrame('synced', revision, { revision });
      case 'heartbeat':
        return sseFrame('heartbeat', undefined, { revision });
      default:
        return '';
    }
  };
}

/** Relays a route watch to an HTTP response as Server-Sent Events (see `relayEvents`). */
export function relayWatch(events: AsyncIterable<RouteEvent>, res: ServerResponse, signal: AbortSignal): Promise<void> {
  return relayEvents(events, sseEncoder(), res, signal);
}
