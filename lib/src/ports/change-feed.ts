/** What a change feed tells its subscribers. */
export interface ChangeFeedListener {
  /** `workspace`'s route table reached `revision` (committed), by a write through any instance, this one included. */
  revision(workspace: string, revision: number): void;
  /** The feed started (`true`) or stopped (`false`) delivering: while it is down, messages may be lost. */
  state(up: boolean): void;
}

/**
 * Wakes route watchers when a workspace's revision moves, across every
 * instance that shares one route store. Only a hint: the store stays the
 * source of truth, so a lost, late, duplicated or out-of-order message delays
 * a watcher (until its next poll) and never misleads it.
 *
 * Contract (checked by `changeFeedConformance` in `switchyard/testing`):
 * - `publish` is called after the write committed; it resolves once the
 *   message is handed to the broker and rejects when it cannot be (the broker
 *   is unreachable). A rejection must never fail the write that caused it;
 *   the core publishes the workspace's latest unsent revision again while the
 *   feed is `up` (routes/announcer.ts), so an adapter need not queue.
 * - Every listener of every instance on the feed, the publisher's own
 *   included, hears each message published while the feed is `up` (at most
 *   once; order across workspaces is not promised).
 * - `subscribe` takes every workspace's revisions on one listener (one
 *   subscription per process scales to any number of workspaces) and returns
 *   a function that removes it. `state` is called on every change of `up`.
 * - `up` is true only while messages are being received: a listener that saw
 *   `state(true)` misses nothing published after that until `state(false)`.
 */
export interface ChangeFeed {
  publish(workspace: string, revision: number): Promise<void>;
  subscribe(listener: ChangeFeedListener): () => void;
  readonly up: boolean;
}
