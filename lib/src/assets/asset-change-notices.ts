import type { ChangeFeed } from '../ports/change-feed.js';

/**
 * A revision of a workspace's assets committed somewhere: by this process
 * (`assetIds` names every asset it changed), or by another instance, heard
 * on the change feed (`assetIds` as its message named them; unset: some
 * assets of the workspace, which ones unknown).
 */
export interface AssetChangeNotice {
  readonly workspace: string;
  readonly revision: number;
  readonly assetIds?: readonly string[] | undefined;
}

/** Where a process hears of asset changes as they commit (a cache of file answers drops what they make stale). */
export interface AssetChangeSource {
  subscribe(listener: (notice: AssetChangeNotice) => void): () => void;
}

/** Workspaces whose last local revision is remembered, so the feed's echo of a local write is not taken for another instance's. */
const MAX_REMEMBERED = 10_000;

/**
 * The notices of one core: its own committed writes at once, with their
 * asset ids, and the feed's asset revisions that it did not write itself.
 * The feed is listened to only while someone listens here.
 */
export class AssetChangeNotices implements AssetChangeSource {
  readonly #listeners = new Set<(notice: AssetChangeNotice) => void>();
  readonly #local = new Map<string, number>();
  readonly #feed: ChangeFeed | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(feed: ChangeFeed | undefined) {
    this.#feed = feed;
  }

  /** This process committed `revision` of `workspace`, changing `assetIds`. */
  committed(workspace: string, revision: number, assetIds: readonly string[]): void {
    this.#local.delete(workspace);
    this.#local.set(workspace, revision);
    if (this.#local.size > MAX_REMEMBERED) this.#local.delete(this.#local.keys().next().value!);
    this.#emit({ workspace, revision, assetIds });
  }

  subscribe(listener: (notice: AssetChangeNotice) => void): () => void {
    const entry = (notice: AssetChangeNotice): void => listener(notice);
    this.#listeners.add(entry);
    if (this.#feed && !this.#unsubscribe)
      this.#unsubscribe = this.#feed.subscribe({
        revision: (workspace, revision, log, assetIds) => {
          if (log !== 'assets' || revision <= (this.#local.get(workspace) ?? 0)) return;
          this.#emit(assetIds ? { workspace, revision, assetIds } : { workspace, revision });
        },
        state: () => undefined,
      });
    return () => {
      this.#listeners.delete(entry);
      if (this.#listeners.size > 0) return;
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    };
  }

  #emit(notice: AssetChangeNotice): void {
    for (const listener of [...this.#listeners]) listener(notice);
  }
}
