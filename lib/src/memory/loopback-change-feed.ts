import { SwitchyardError } from '../errors.js';
import { MAX_FEED_IDS, type ChangeFeed, type ChangeFeedListener, type ChangeLogName } from '../ports/change-feed.js';
import { ChangeFeedListeners } from '../ports/change-feed-listeners.js';

/**
 * A change feed within one process: what is published is heard by this
 * feed's own listeners. Enough for several cores in one process over one
 * store; across processes use a broker (the service's Redis and NATS
 * adapters). Up from construction until `close()`; `start()` opens it again.
 */
export class LoopbackChangeFeed implements ChangeFeed {
  readonly #listeners = new ChangeFeedListeners();

  constructor() {
    this.#listeners.setUp(true);
  }

  get up(): boolean {
    return this.#listeners.up;
  }

  async publish(workspace: string, revision: number, log: ChangeLogName = 'routes', changed?: readonly string[]): Promise<void> {
    if (!this.up) throw new SwitchyardError('unavailable', 'the change feed is closed');
    // As over a broker: listeners hear of it after the publisher has moved on, with ids only as many as a message carries.
    const named = changed && changed.length <= MAX_FEED_IDS ? [...changed] : undefined;
    queueMicrotask(() => this.#listeners.deliver(workspace, revision, log, named));
  }

  subscribe(listener: ChangeFeedListener): () => void {
    return this.#listeners.subscribe(listener);
  }

  start(): void {
    this.#listeners.setUp(true);
  }

  /** Stops delivering: listeners are told the feed is down, and publishing rejects until `start()`. */
  close(): void {
    this.#listeners.setUp(false);
  }
}
