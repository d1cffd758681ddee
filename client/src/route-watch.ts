// watchRouteTable: a local copy of a workspace's route table, kept in step
// with the gateway's `GET /v1/routing:watch` event stream, for services that
// dispatch their own requests by it (docs/routes.md, "Matching in process"; docs/dispatch.md).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SyncedRouteTable, systemTime, type Route, type RouteEvent, type RouteTableMatch, type Timers } from '@switchyard/core/routes';
import type { TokenSource } from './options.js';
import type { RestRoute } from './rest.js';

export interface WatchRouteTableOptions {
  /** The gateway (`http://127.0.0.1:8080`), or several: after a failure the next one is tried. */
  readonly url: string | readonly string[];
  readonly token: TokenSource;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** First and longest wait between reconnects; each failure in a row doubles the wait (with jitter). Defaults 250 ms and 10 s. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** A connection that sends nothing for this long (no event, no heartbeat) is taken for dead. Default 45 s (three server heartbeats). */
  readonly idleTimeoutMs?: number;
  /** Where the idle timeout and the waits between reconnects are scheduled; defaults to the system's timers (tests pass fake ones). */
  readonly timers?: Timers;
}

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
  const urls = (typeof options.url === 'string' ? [options.url] : [...options.url]).map((url) => url.replace(/\/+$/, ''));
  if (urls.length === 0) throw new TypeError('watchRouteTable needs at least one url');
  const fetchFn = options.fetch ?? fetch;
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  const idleMs = options.idleTimeoutMs ?? 45_000;
  const timers = options.timers ?? systemTime;
  const table = new SyncedRouteTable();
  const stop = new AbortController();
  const disconnectListeners = new Set<(reason: unknown) => void>();
  let connected = false;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined);
  table.onChange(() => table.ready && settle.resolve());

  const connectOnce = async (url: string): Promise<void> => {
    const token = typeof options.token === 'string' ? options.token : await options.token();
    const connection = new AbortController();
    const abort = () => connection.abort();
    stop.signal.addEventListener('abort', abort, { once: true });
    let idle = timers.setTimeout(abort, idleMs);
    try {
      const response = await fetchFn(`${url}/v1/routing:watch?sinceRevision=${table.ready ? table.revision : 0}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        signal: connection.signal,
      });
      if (!response.ok || response.body === null) throw await refusal(response);
      connected = true;
      const parser = createParser({ onEvent: (message) => applyMessage(table, message) });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        timers.clearTimeout(idle);
        idle = timers.setTimeout(abort, idleMs);
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      throw new Error('the event stream ended');
    } finally {
      timers.clearTimeout(idle);
      stop.signal.removeEventListener('abort', abort);
      connected = false;
      // A snapshot cut off half-way is not a table.
      table.abandonSnapshot();
    }
  };

  void (async () => {
    let failures = 0;
    for (let attempt = 0; !stop.signal.aborted; attempt++) {
      const revisionBefore = table.revision;
      const syncedBefore = table.ready;
      try {
        await connectOnce(urls[attempt % urls.length]!);
      } catch (error) {
        if (stop.signal.aborted) break;
        if (error instanceof RouteWatchRefused) {
          settle.reject(error);
          for (const listener of disconnectListeners) listener(error);
          break;
        }
        for (const listener of disconnectListeners) listener(error);
      }
      // A connection that got somewhere resets the backoff.
      failures = table.revision !== revisionBefore || table.ready !== syncedBefore ? 0 : failures + 1;
      const wait = Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures, 16));
      await delay(timers, wait / 2 + Math.random() * (wait / 2), stop.signal);
    }
  })();

  return {
    ready,
    get revision() {
      return table.revision;
    },
    get connected() {
      return connected;
    },
    match: (method, path) => table.match(method, path),
    routes: () => table.routes(),
    onChange: (listener) => table.onChange(listener),
    onDisconnect: (listener) => {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
    close: () => {
      stop.abort();
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

function routeOf(route: Omit<RestRoute, 'owner'> & { owner?: string }): Route {
  return Object.freeze({
    ...route,
    // A gateway from before routes as code names no owner.
    owner: route.owner ?? '',
    middleware: Object.freeze([...route.middleware]),
    createdAt: new Date(route.createdAt),
    updatedAt: new Date(route.updatedAt),
  });
}

/** 401 and 403 (and other 4xx but 408 and 429) will not change by retrying. */
async function refusal(response: Response): Promise<Error> {
  const text = await response.text().catch(() => '');
  const permanent = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
  const message = `GET /v1/routing:watch answered ${response.status}: ${text.slice(0, 200)}`;
  return permanent ? new RouteWatchRefused(response.status, message) : new Error(message);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(timers: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(done, ms);
    function done() {
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
