// The workspace's asset changes as they happen (GET /v1/assets:watch via the
// client's watchAssets), for the assets view to apply to its listing: from
// now on, reconnecting by itself and resuming where it left off; `reset`
// when it fell too far behind (list again).
import { signal, type Signal } from '@preact/signals';
import { AssetWatchRefused, watchAssets, type RestAssetChange } from '@switchyard/client/web';
import { apiBase, guardedFetch } from '../../lib/api.js';
import { currentToken, signOut } from '../../lib/session.js';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';
export type AssetChange = RestAssetChange;

export interface LiveAssets {
  readonly status: Signal<LiveStatus>;
  readonly revision: Signal<number>;
  readonly problem: Signal<string>;
  /**
   * Settles once the watch listens, or has failed to: a listing read after
   * it misses no change (the watch reports every one after that point).
   */
  readonly listening: Promise<void>;
  onChange(listener: (change: AssetChange) => void): () => void;
  /** The changes since the last one heard are no longer kept: list again. */
  onReset(listener: () => void): () => void;
  close(): void;
}

export function openLiveAssets(viewSignal: AbortSignal): LiveAssets {
  const status = signal<LiveStatus>('connecting');
  const revision = signal(0);
  const problem = signal('');
  const changeListeners = new Set<(change: AssetChange) => void>();
  const resetListeners = new Set<() => void>();
  const watch = watchAssets({ url: apiBase(), token: currentToken, fetch: guardedFetch(viewSignal), maxBackoffMs: 5000 });

  let listened!: () => void;
  const listening = new Promise<void>((resolve) => (listened = resolve));
  watch.ready.then(
    () => {
      status.value = 'live';
      problem.value = '';
      listened();
    },
    (error: unknown) => {
      listened();
      if (!(error instanceof AssetWatchRefused)) return;
      status.value = 'refused';
      if (error.status === 401) signOut('The server refused your token (401). Sign in again.');
      else problem.value = error.status === 403 ? 'Your token does not carry the assets:read scope.' : error.message;
    },
  );
  const offEvent = watch.onEvent((event) => {
    revision.value = event.revision;
    if (event.type === 'change') for (const listener of [...changeListeners]) listener(event.change);
    if (event.type === 'reset') for (const listener of [...resetListeners]) listener();
  });
  const offDisconnect = watch.onDisconnect((reason) => {
    // A first connection that failed: list anyway (the badge says the list is not live).
    listened();
    if (reason instanceof AssetWatchRefused) return;
    problem.value = reason instanceof Error ? reason.message : String(reason);
  });
  // The watch reconnects by itself; the badge follows whether a stream is open.
  const poll = setInterval(() => {
    if (status.value === 'refused' || status.value === 'connecting') return;
    status.value = watch.connected ? 'live' : 'reconnecting';
  }, 1000);

  return {
    status,
    revision,
    problem,
    listening,
    onChange: (listener) => {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    onReset: (listener) => {
      resetListeners.add(listener);
      return () => resetListeners.delete(listener);
    },
    close: () => {
      clearInterval(poll);
      offEvent();
      offDisconnect();
      watch.close();
    },
  };
}
