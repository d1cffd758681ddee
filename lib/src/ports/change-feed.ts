/** The change logs whose revisions a feed carries: each workspace's route table and its assets, each with revisions of its own. */
export const CHANGE_LOGS = ['routes', 'assets'] as const;
export type ChangeLogName = (typeof CHANGE_LOGS)[number];

/** The most ids a feed message names: a revision that changed more (a large batch delete) says which ones no longer, and listeners take it as "some". */
export const MAX_FEED_IDS = 100;

/** What a change feed tells its subscribers. */
export interface ChangeFeedListener {
  /**
   * `workspace`'s `log` (its route table, or its assets) reached `revision` (committed), by a write through any
   * instance, this one included. `changed`, when the publisher named them: the ids that revision changed (an asset
   * revision's assets); unset, which ones is not said.
   */
  revision(workspace: string, revision: number, log: ChangeLogName, changed?: readonly string[]): void;
  /** The feed started (`true`) or stopped (`false`) delivering: while it is down, messages may be lost. */
  state(up: boolean): void;
}

/**
 * Wakes watchers when a workspace's revision moves, across every instance
 * that shares one store: route watchers by the route table's revisions,
 * asset watchers by the assets' (`log` tells them apart; routes when unsaid). Only a hint: the store stays the
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
 *   once; order across workspaces is not promised), with the log it was
 *   published on (`routes` when the publisher named none).
 * - `subscribe` takes every workspace's revisions on one listener (one
 *   subscription per process scales to any number of workspaces) and returns
 *   a function that removes it. `state` is called on every change of `up`.
 * - `up` is true only while messages are being received: a listener that saw
 *   `state(true)` misses nothing published after that until `state(false)`.
 */
export interface ChangeFeed {
  /** `changed`: the ids the revision changed, passed on to listeners when the message can carry them (at most MAX_FEED_IDS). */
  publish(workspace: string, revision: number, log?: ChangeLogName, changed?: readonly string[]): Promise<void>;
  subscribe(listener: ChangeFeedListener): () => void;
  readonly up: boolean;
}
