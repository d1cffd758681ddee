import { systemTime, type TimerHandle, type Timers } from '../clock.js';
import type { ChangeFeed, ChangeLogName } from '../ports/change-feed.js';

/** How often an announcement that could not go out is tried again. */
export const DEFAULT_ANNOUNCE_RETRY_MS = 500;

/** Beyond this many workspaces with an unsent revision, the oldest is dropped: its watchers elsewhere find it at their next poll. */
const MAX_UNSENT = 10_000;

/**
 * Announces committed revisions on the change feed, and sends again the ones
 * that could not go out. Why: when a broker comes back, each instance reads
 * its watched workspaces once and then trusts messages, but the instances'
 * connections come back at slightly different moments (NATS reconnects each
 * on its own timer; Redis publishes on a connection apart from the
 * subscription). A change written here after another instance's catch-up
 * read, and before this instance could publish again, would reach that
 * instance's watchers only at its next safety poll (up to 30 s). So a failed
 * announcement is kept (the latest revision per workspace) and tried again
 * every `retryMs` (on `timers`) while this instance's feed is up, until it
 * goes out.
 */
export class Announcer {
  readonly #feed: ChangeFeed;
  readonly #retryMs: number;
  /** Workspace → the latest revision not announced; in the order they failed. */
  readonly #unsent = new Map<string, number>();
  readonly #timers: Timers;
  readonly #log: ChangeLogName;
  #timer: TimerHandle | undefined;

  /** Announces revisions of `log` (the route table's by default; an asset service has an announcer of its own). */
  constructor(feed: ChangeFeed, retryMs = DEFAULT_ANNOUNCE_RETRY_MS, timers: Timers = systemTime, log: ChangeLogName = 'routes') {
    this.#feed = feed;
    this.#log = log;
    this.#retryMs = retryMs;
    this.#timers = timers;
  }

  /**
   * Never rejects: the write has committed and stands, whatever the broker does. `changed` goes out with the
   * first try only: a revision sent again stands for every unsent one of its workspace, so it names none.
   */
  announce(workspace: string, revision: number, changed?: readonly string[]): void {
    this.#feed.publish(workspace, revision, this.#log, changed).then(
      () => {
        // Out: an older unsent revision of the workspace says nothing more.
        if ((this.#unsent.get(workspace) ?? Number.POSITIVE_INFINITY) <= revision) this.#unsent.delete(workspace);
      },
      () => this.#keep(workspace, revision),
    );
  }

  /** How many workspaces have a revision waiting to be sent again (for tests). */
  get unsent(): number {
    return this.#unsent.size;
  }

  #keep(workspace: string, revision: number): void {
    const kept = this.#unsent.get(workspace);
    if (kept !== undefined && kept >= revision) return;
    this.#unsent.delete(workspace);
    this.#unsent.set(workspace, revision);
    if (this.#unsent.size > MAX_UNSENT) this.#unsent.delete(this.#unsent.keys().next().value!);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#unsent.size === 0) return;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      this.#retry();
    }, this.#retryMs);
    this.#timer.unref?.();
  }

  #retry(): void {
    // Down: publishing would fail at once; look again in a while, and send everything kept once it is back.
    if (!this.#feed.up) return this.#schedule();
    const batch = [...this.#unsent];
    this.#unsent.clear();
    for (const [workspace, revision] of batch) this.announce(workspace, revision);
  }
}
