// watchAssets: a workspace's asset changes as they happen, from the gateway's
// `GET /v1/assets:watch` event stream, resumed after a disconnect with
// `Last-Event-ID` so no change is missed or delivered twice (docs/assets.md, "Watching").
import type { EventSourceMessage } from 'eventsource-parser';
import { followEventStream, type EventStreamOptions } from './event-stream.js';
import type { RestAssetChange } from './rest.js';

export interface WatchAssetsOptions extends EventStreamOptions {
  /** The revision the caller has applied: only later changes come. Unset: from now on (a `synced` event first). */
  readonly sinceRevision?: number;
}

/**
 * What the watch delivers: each change (a batch delete's changes share their
 * revision, and arrive together); `synced` when it started from now; `reset`
 * when the changes after the caller's revision are no longer kept (list the
 * assets again; the changes after `revision` follow); `heartbeat` while quiet.
 */
export type AssetWatchEvent =
  | { readonly type: 'change'; readonly revision: number; readonly change: RestAssetChange }
  | { readonly type: 'synced' | 'reset' | 'heartbeat'; readonly revision: number };

export interface AssetWatch {
  /** Resolves at the first event; rejects if the watch is refused for good (bad token, missing scope). */
  readonly ready: Promise<void>;
  /** The last revision whose changes were all delivered (`undefined` before the first event, unless `sinceRevision` was given). */
  readonly revision: number | undefined;
  /** True while an event stream is open. */
  readonly connected: boolean;
  onEvent(listener: (event: AssetWatchEvent) => void): () => void;
  /** Called with why a connection ended (the watch reconnects by itself). */
  onDisconnect(listener: (reason: unknown) => void): () => void;
  close(): void;
}

/** An answer that retrying cannot fix: the watch stops and `ready` rejects. */
export class AssetWatchRefused extends Error {
  override readonly name = 'AssetWatchRefused';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Follows the workspace's asset changes. After a failure it reconnects
 * (backing off, over every gateway given) with `Last-Event-ID` set to the
 * last revision delivered whole; the changes of a revision cut off half-way
 * are sent again by the server and only the ones not yet delivered are passed
 * on.
 */
export function watchAssets(options: WatchAssetsOptions): AssetWatch {
  const listeners = new Set<(event: AssetWatchEvent) => void>();
  const disconnectListeners = new Set<(reason: unknown) => void>();
  /** The last revision delivered whole, the one being delivered, and how many of its changes were. */
  let complete = options.sinceRevision;
  let current = options.sinceRevision;
  let delivered = 0;
  /** Changes of `current` to skip after a reconnect: the ones delivered before it. */
  let skip = 0;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined);
  const emit = (event: AssetWatchEvent): void => {
    settle.resolve();
    for (const listener of [...listeners]) listener(event);
  };

  const apply = (message: EventSourceMessage): void => {
    const data = JSON.parse(message.data) as { revision: number; code?: string; message?: string };
    const { revision } = data;
    switch (message.event) {
      case 'error':
        throw new Error(`the watch failed: ${data.code ?? 'unknown'}: ${data.message ?? ''}`);
      case 'synced':
      case 'reset':
      case 'heartbeat':
        complete = current = revision;
        delivered = skip = 0;
        return emit({ type: message.event, revision });
      default: {
        if (!message.event?.startsWith('asset.')) return;
        if (revision === current && skip > 0) return void (skip -= 1);
        if (revision !== current) {
          complete = current;
          current = revision;
          delivered = skip = 0;
        }
        delivered += 1;
        return emit({ type: 'change', revision, change: data as unknown as RestAssetChange });
      }
    }
  };

  const stream = followEventStream(
    options,
    {
      request: () => {
        // Cut off within a revision: ask from the one before, and skip what was delivered of it.
        const from = delivered > 0 ? complete : current;
        skip = delivered > 0 ? delivered : 0;
        const headers: Record<string, string> = from === undefined ? {} : { 'last-event-id': String(from) };
        return { path: '/v1/assets:watch', headers };
      },
      event: apply,
      progress: () => `${current} ${delivered}`,
      refused: (status, message) => {
        const error = new AssetWatchRefused(status, message);
        settle.reject(error);
        for (const listener of disconnectListeners) listener(error);
      },
      disconnected: (reason) => {
        for (const listener of disconnectListeners) listener(reason);
      },
    },
    'watchAssets',
  );

  return {
    ready,
    get revision() {
      return delivered > 0 ? complete : current;
    },
    get connected() {
      return stream.connected;
    },
    onEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onDisconnect: (listener) => {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
    close: () => {
      stream.close();
      settle.reject(new Error('the asset watch was closed'));
    },
  };
}
