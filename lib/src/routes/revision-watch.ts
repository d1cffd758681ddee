import type { RouteStore } from '../ports/route-store.js';

interface Waiter {
  readonly revision: number;
  readonly wake: () => void;
}

interface WorkspaceHead {
  head: number;
  readonly waiters: Set<Waiter>;
  timer: NodeJS.Timeout | undefined;
  polling: Promise<void> | undefined;
}

/**
 * Tells route watchers when their workspace's revision has moved past theirs.
 * One poll of `store.revision` per watched workspace every `pollMs`, however
 * many watchers it has (the store is shared by every instance, so a change
 * made through another instance is seen within one interval); writes through
 * this process `nudge` at once. Polling stops when a workspace has no waiter.
 */
export class RevisionWatch {
  readonly #store: Pick<RouteStore, 'revision'>;
  readonly #pollMs: number;
  readonly #workspaces = new Map<string, WorkspaceHead>();

  constructor(store: Pick<RouteStore, 'revision'>, pollMs: number) {
    this.#store = store;
    this.#pollMs = pollMs;
  }

  /** Resolves once the workspace's revision is past `revision`, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  wait(workspace: string, revision: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const state = this.#state(workspace);
    if (state.head > revision || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timeout);
        signal?.removeEventListener('abort', done);
        state.waiters.delete(waiter);
        if (state.waiters.size === 0) this.#stop(workspace, state);
        resolve();
      };
      const waiter: Waiter = { revision, wake: done };
      const timeout = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      state.waiters.add(waiter);
      this.#start(workspace, state);
    });
  }

  /** A write through this process: look now rather than at the next interval. */
  nudge(workspace: string): void {
    const state = this.#workspaces.get(workspace);
    if (state && state.waiters.size > 0) void this.#poll(state, workspace);
  }

  #state(workspace: string): WorkspaceHead {
    let state = this.#workspaces.get(workspace);
    if (!state) this.#workspaces.set(workspace, (state = { head: 0, waiters: new Set(), timer: undefined, polling: undefined }));
    return state;
  }

  #start(workspace: string, state: WorkspaceHead): void {
    if (state.timer !== undefined) return;
    state.timer = setInterval(() => void this.#poll(state, workspace), this.#pollMs);
    state.timer.unref();
  }

  #stop(workspace: string, state: WorkspaceHead): void {
    clearInterval(state.timer);
    state.timer = undefined;
    // Forget idle workspaces: their head is re-read on the next watch.
    if (state.polling === undefined) this.#workspaces.delete(workspace);
  }

  #poll(state: WorkspaceHead, workspace: string): Promise<void> {
    state.polling ??= (async () => {
      try {
        state.head = Math.max(state.head, await this.#store.revision(workspace));
      } catch {
        // The store is down: watchers keep their table and heartbeats; the next poll tries again.
      } finally {
        state.polling = undefined;
      }
      for (const waiter of [...state.waiters]) if (state.head > waiter.revision) waiter.wake();
    })();
    return state.polling;
  }
}
