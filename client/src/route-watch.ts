// watchRouteTable: a local copy of a workspace's route table, kept in step
// with the gateway's `GET /v1/routing:watch` event stream, for services that
// dispatch their own requests by it (docs/routes.md, "Matching in process"; docs/dispatch.md).
import type { EventSourceMessage } from 'eventsource-parser';
import { SyncedRouteTable, type Route, type RouteEvent, type RouteTableMatch } from '@switchyard/core/routes';
import { followEventStream, type EventStreamOptions } from './event-stream.js';
import type { RestRoute } from './rest.js';

export type WatchRouteTableOptions = EventStreamOptions;

export interface WatchedRouteTable {
  /** Resolves once a whole table has arrived; rejects if the watch is refused for good (bad token, missing scope). */
  readonly ready: Promise<void>;
  /** The revision of the table `match` uses. */
  readonly revision: number;
  /** True while an event stream is open. */
  readonly connected: boolean;
  /** Matches against the last whole table received, also while disconnected. */
  match(method: string, path: string): RouteTableMatch<Route> | undefined;
  routes(): Route[];
  /** Called after every change of the table (a change event, or a fresh snapshot swapped in). */
  onChange(listener: (event: RouteEvent) => void): () => void;
  /** Called with why a connection ended (the watch reconnects by itself). */
  onDisconnect(listener: (reason: unknown) => void): () => void;
  close(): void;
}

/** An answer that retrying cannot fix: the watch stops and `ready` rejects. */
export class RouteWatchRefused extends Error {
  override readonly name = 'RouteWatchRefused';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Connects, applies the snapshot and every change, and reconnects after a
 * failure from the last revision it has (only the changes missed are sent, or
 * a fresh snapshot if the server no longer has them), backing off while the
 * gateway is away. Between the reconnects the last whole table keeps serving.
 */
export function watchRouteTable(options: WatchRouteTableOptions): WatchedRouteTable {
  const table = new SyncedRouteTable();
  const disconnectListeners = new Set<(reason: unknown) => void>();
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined);
  table.onChange(() => table.ready && settle.resolve());

  const stream = followEventStream(
    options,
    {
      request: () => ({ path: `/v1/routing:watch?sinceRevision=${table.ready ? table.revision : 0}` }),
      event: (message) => applyMessage(table, message),
      // A snapshot cut off half-way is not a table.
      ended: () => table.abandonSnapshot(),
      progress: () => `${table.revision} ${table.ready}`,
      refused: (status, message) => {
        const error = new RouteWatchRefused(status, message);
        settle.reject(error);
        for (const listener of disconnectListeners) listener(error);
      },
      disconnected: (reason) => {
        for (const listener of disconnectListeners) listener(reason);
      },
    },
    'watchRouteTable',
  );

  return {
    ready,
    get revision() {
      return table.revision;
    },
    get connected() {
      return stream.connected;
    },
    match: (method, path) => table.match(method, path),
    routes: () => table.routes(),
    onChange: (listener) => table.onChange(listener),
    onDisconnect: (listener) => {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
    close: () => {
      stream.close();
      settle.reject(new Error('the route watch was closed'));
    },
  };
}

function applyMessage(table: SyncedRouteTable, message: EventSourceMessage): void {
  const data = JSON.parse(message.data) as {
    revision: number;
    route?: Omit<RestRoute, 'owner'> & { owner?: string };
    id?: string;
    moreInRevision?: boolean;
    code?: string;
    message?: string;
  };
  const { revision, moreInRevision } = data;
  switch (message.event) {
    case 'reset':
    case 'synced':
    case 'heartbeat':
      return table.apply({ type: message.event, revision });
    case 'upsert':
      return table.apply({ type: 'upsert', revision, route: routeOf(data.route!), moreInRevision });
    case 'delete':
      return table.apply({ type: 'delete', revision, id: data.id!, moreInRevision });
    case 'error':
      throw new Error(`the watch failed: ${data.code ?? 'unknown'}: ${data.message ?? ''}`);
  }
}

/** A literal, not a spread of the JSON: V8 copies a spread with replaced properties slowly, and a revision may hold 5,000 (route-apply-5000). */
function routeOf(route: Omit<RestRoute, 'owner'> & { owner?: string }): Route {
  return Object.freeze({
    id: route.id,
    method: route.method,
    path: route.path,
    middleware: Object.freeze(route.middleware.slice()),
    handler: route.handler,
    // A gateway from before routes as code names no owner.
    owner: route.owner ?? '',
    createdAt: new Date(route.createdAt),
    updatedAt: new Date(route.updatedAt),
    revision: route.revision,
  });
}
