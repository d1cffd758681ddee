import type { ChangeFeedListener, ChangeLogName } from './change-feed.js';

/**
 * The subscriber side every ChangeFeed adapter needs: its listeners and its
 * up/down state. An adapter calls `deliver` for each message it receives and
 * `setUp` when its subscription starts or stops delivering.
 */
export class ChangeFeedListeners {
  readonly #listeners = new Set<ChangeFeedListener>();
  #up = false;

  get up(): boolean {
    return this.#up;
  }

  subscribe(listener: ChangeFeedListener): () => void {
    // A fresh object per subscription, so subscribing one listener twice gives two removable entries.
    const entry: ChangeFeedListener = {
      revision: (w, r, log, changed) => listener.revision(w, r, log, changed),
      state: (up) => listener.state(up),
    };
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }

  deliver(workspace: string, revision: number, log: ChangeLogName = 'routes', changed?: readonly string[]): void {
    for (const listener of [...this.#listeners]) listener.revision(workspace, revision, log, changed);
  }

  /** Tells listeners only of changes: a repeated `setUp(true)` (e.g. a second 'ready') is no news. */
  setUp(up: boolean): void {
    if (up === this.#up) return;
    this.#up = up;
    for (const listener of [...this.#listeners]) listener.state(up);
  }
}
