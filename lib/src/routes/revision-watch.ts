import { systemTime, type TimerHandle, type Timers } from '../clock.js';
import type { ChangeFeed, ChangeLogName } from '../ports/change-feed.js';

/** Where a workspace's current revision is read: the route store, or the asset store. */
export interface RevisionSource {
  revision(workspace: string): Promise<number>;
}

export interface RevisionWatchOptions {
  /** Polling interval without a feed, and while the feed is down (ms). */
  readonly pollMs: number;
  /** Where other instances' writes are heard; none: poll every `pollMs`. */
  readonly feed?: ChangeFeed | undefined;
  /** With the feed up, each watched workspace is still read once per this interval, at a random point of its second half (ms). */
  readonly safetyPollMs: number;
  /** Where polls, timeouts and forgetting are scheduled (systemTime). */
  readonly timers?: Timers | undefined;
  /** Where the staggering of polls is drawn from, in [0, 1) (Math.random). */
  readonly random?: (() => number) | undefined;
  /** Which of the feed's logs moves these revisions ('routes'); messages of the others are not heard. */
  readonly log?: ChangeLogName | undefined;
}

interface Waiter {
  readonly revision: number;
  readonly wake: () => void;
}

interface WorkspaceHead {
  /** The highest revision the store said, or a write through this process committed. */
  confirmed: number;
  /** The highest revision the feed announced: wakes waiters, but is not trusted (another deployment's message) until the store confirms it. */
  heard: number;
  readonly waiters: Set<Waiter>;
  /** The next poll; it runs on while waiters come and go (a watcher's heartbeat re-wait must not postpone it). */
  timer: TimerHandle | undefined;
  /** When an unwatched head is dropped. */
  forget: TimerHandle | undefined;
  polling: Promise<void> | undefined;
  /** A poll was asked for while one was running, which may have read too early. */
  pollAgain: boolean;
}

/**
 * Tells watchers when their workspace's revision (of its route table, or of
 * its assets: one watch per log) has moved past theirs.
 *
 * Without a feed: one read of `store.revision` per watched workspace every
 * `pollMs`, however many watchers it has; writes through this process wake
 * watchers at once. With a feed that is up: watchers wake on its messages,
 * which carry the revision (no read), and each watched workspace is read only
 * as a safety net every `safetyPollMs` (staggered, so thousands of workspaces
 * do not poll in one tick); a lost message delays a change by at most that.
 * While the feed is down, polling every `pollMs` takes over; when it comes
 * back, every watched workspace is read once (messages lost meanwhile).
 */
export class RevisionWatch {
  readonly #store: RevisionSource;
  readonly #log: ChangeLogName;
  readonly #options: RevisionWatchOptions;
  readonly #timers: Timers;
  readonly #random: () => number;
  readonly #workspaces = new Map<string, WorkspaceHead>();
  #feedUp = false;
  #unsubscribe: (() => void) | undefined;

  constructor(store: RevisionSource, options: RevisionWatchOptions) {
    this.#store = store;
    this.#log = options.log ?? 'routes';
    this.#options = options;
    this.#timers = options.timers ?? systemTime;
    this.#random = options.random ?? Math.random;
  }

  /**
   * Resolves once the workspace's revision is past `revision` (with `true`),
   * or with `false` after `timeoutMs` or when `signal` aborts, whichever
   * comes first. `false` means no change was seen: there is nothing to read.
   */
  wait(workspace: string, revision: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    const existing = this.#workspaces.get(workspace);
    if (signal?.aborted) return Promise.resolve(false);
    if (existing && existing.confirmed > revision) return Promise.resolve(true);
    const state = existing ?? this.#create(workspace);
    return new Promise((resolve) => {
      const done = (moved: boolean): void => {
        this.#timers.clearTimeout(timeout);
        signal?.removeEventListener('abort', stop);
        state.waiters.delete(waiter);
        if (state.waiters.size === 0) this.#idle(workspace, state);
        resolve(moved);
      };
      const stop = (): void => done(false);
      const waiter: Waiter = { revision, wake: () => done(true) };
      const timeout = this.#timers.setTimeout(stop, timeoutMs);
      signal?.addEventListener('abort', stop, { once: true });
      this.#timers.clearTimeout(state.forget);
      state.waiters.add(waiter);
      // A fresh head (the feed may have spoken before we listened) or an announced one: ask the store now.
      if (this.#slow && (existing === undefined || state.heard > revision)) void this.#poll(state, workspace);
      if (state.timer === undefined) this.#schedule(workspace, state, this.#nextDelay());
    });
  }

  /** A write through this process committed `revision`: its watchers wake without a read. */
  committed(workspace: string, revision: number): void {
    const state = this.#workspaces.get(workspace);
    if (!state) return;
    state.confirmed = Math.max(state.confirmed, revision);
    this.#wake(state, state.confirmed);
  }

  /** With the feed up, polls are only the safety net. */
  get #slow(): boolean {
    return this.#options.feed !== undefined && this.#feedUp;
  }

  #create(workspace: string): WorkspaceHead {
    const state: WorkspaceHead = {
      confirmed: 0,
      heard: 0,
      waiters: new Set(),
      timer: undefined,
      forget: undefined,
      polling: undefined,
      pollAgain: false,
    };
    if (this.#workspaces.size === 0) this.#listen();
    this.#workspaces.set(workspace, state);
    return state;
  }

  /** The feed is heard while any workspace is watched: one listener per core, however many workspaces. */
  #listen(): void {
    const { feed } = this.#options;
    if (!feed || this.#unsubscribe) return;
    this.#feedUp = feed.up;
    this.#unsubscribe = feed.subscribe({
      revision: (workspace, revision, log) => {
        if (log !== this.#log) return;
        const state = this.#workspaces.get(workspace);
        if (!state || revision <= state.heard) return;
        state.heard = revision;
        this.#wake(state, revision);
      },
      state: (up) => this.#feedChanged(up),
    });
  }

  #feedChanged(up: boolean): void {
    this.#feedUp = up;
    for (const [workspace, state] of [...this.#workspaces]) {
      if (state.waiters.size === 0) {
        // Kept only while the feed vouched for its head; no longer.
        if (!up) this.#forget(workspace, state);
        continue;
      }
      // Back up: one read each for what was published while it was down. Down: fast polling, staggered over one interval.
      if (up) void this.#poll(state, workspace);
      this.#schedule(workspace, state, up ? this.#nextDelay() : this.#random() * this.#options.pollMs);
    }
  }

  /**
   * No waiter left. Polling: the head goes stale at once, so it is forgotten
   * (re-read on the next watch). Feed up: it stays current from messages
   * alone, so the watcher's next wait (right after it reads the change) needs
   * no read; it is forgotten after a safety interval without a watcher.
   */
  #idle(workspace: string, state: WorkspaceHead): void {
    if (!this.#slow) {
      this.#forget(workspace, state);
      return;
    }
    state.forget = this.#timers.setTimeout(() => this.#forget(workspace, state), this.#options.safetyPollMs);
    state.forget.unref?.();
  }

  #forget(workspace: string, state: WorkspaceHead): void {
    this.#timers.clearTimeout(state.timer);
    this.#timers.clearTimeout(state.forget);
    state.timer = undefined;
    if (this.#workspaces.get(workspace) === state) this.#workspaces.delete(workspace);
    if (this.#workspaces.size === 0) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    }
  }

  #nextDelay(): number {
    const { pollMs, safetyPollMs } = this.#options;
    return this.#slow ? safetyPollMs * (0.5 + this.#random() / 2) : pollMs;
  }

  #schedule(workspace: string, state: WorkspaceHead, delayMs: number): void {
    this.#timers.clearTimeout(state.timer);
    state.timer = this.#timers.setTimeout(() => {
      state.timer = undefined;
      // Unwatched meanwhile: the next waiter starts a new schedule.
      if (state.waiters.size === 0) return;
      void this.#poll(state, workspace);
      this.#schedule(workspace, state, this.#nextDelay());
    }, delayMs);
    state.timer.unref?.();
  }

  #poll(state: WorkspaceHead, workspace: string): Promise<void> {
    if (state.polling) {
      state.pollAgain = true;
      return state.polling;
    }
    state.polling = (async () => {
      do {
        state.pollAgain = false;
        try {
          state.confirmed = Math.max(state.confirmed, await this.#store.revision(workspace));
        } catch {
          // The store is down: watchers keep their table and heartbeats; the next poll tries again.
        }
        this.#wake(state, state.confirmed);
      } while (state.pollAgain && state.waiters.size > 0);
      state.polling = undefined;
    })();
    return state.polling;
  }

  #wake(state: WorkspaceHead, head: number): void {
    for (const waiter of [...state.waiters]) if (head > waiter.revision) waiter.wake();
  }
}
