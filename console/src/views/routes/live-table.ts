// The route table kept live by the watch stream (GET /v1/routing:watch via
// the client's watchRouteTable): a snapshot first, then every change made
// anywhere, applied within a second, reconnecting by itself.
import { signal, type Signal } from '@preact/signals';
import { RouteWatchRefused, watchRouteTable, type WatchedRouteTable } from '@switchyard/client/web';
import { apiBase, guardedFetch } from '../../lib/api.js';
import { currentToken, signOut } from '../../lib/session.js';

/** A route as the watched table holds it (times as Dates). */
export type Route = ReturnType<WatchedRouteTable['routes']>[number];
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface LiveTable {
  readonly routes: Signal<readonly Route[]>;
  readonly status: Signal<LiveStatus>;
  readonly revision: Signal<number>;
  readonly problem: Signal<string>;
  readonly watch: WatchedRouteTable;
  close(): void;
}

export function openLiveTable(viewSignal: AbortSignal): LiveTable {
  const routes = signal<readonly Route[]>([]);
  const status = signal<LiveStatus>('connecting');
  const revision = signal(0);
  const problem = signal('');
  const watch = watchRouteTable({ url: apiBase(), token: currentToken, fetch: guardedFetch(viewSignal), maxBackoffMs: 5000 });

  // Oldest first, as the API lists them.
  const refresh = () => {
    routes.value = watch.routes().sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    revision.value = watch.revision;
    status.value = 'live';
    problem.value = '';
  };
  watch.ready.then(refresh, (error: unknown) => {
    if (!(error instanceof RouteWatchRefused)) return;
    status.value = 'refused';
    if (error.status === 401) signOut('The server refused your token (401). Sign in again.');
    else problem.value = error.status === 403 ? 'Your token does not carry the routes:read scope.' : error.message;
  });
  const offChange = watch.onChange(refresh);
  const offDisconnect = watch.onDisconnect((reason) => {
    if (reason instanceof RouteWatchRefused) return;
    problem.value = reason instanceof Error ? reason.message : String(reason);
  });
  // The watch reconnects by itself; the badge follows whether a stream is open.
  const poll = setInterval(() => {
    if (status.value === 'refused' || status.value === 'connecting') return;
    status.value = watch.connected ? 'live' : 'reconnecting';
  }, 1000);

  return {
    routes,
    status,
    revision,
    problem,
    watch,
    close: () => {
      clearInterval(poll);
      offChange();
      offDisconnect();
      watch.close();
    },
  };
}
