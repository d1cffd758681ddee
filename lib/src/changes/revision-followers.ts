import { systemTime, type TimeSource } from '../clock.js';
import type { ChangeFeed, ChangeLogName } from '../ports/change-feed.js';
import { Announcer, DEFAULT_ANNOUNCE_RETRY_MS } from '../routes/announcer.js';
import { RevisionWatch, type RevisionSource } from '../routes/revision-watch.js';

export interface RevisionFollowersOptions {
  /** Which log's revisions these are: the route table's or the assets'. */
  readonly log: ChangeLogName;
  /** Polling interval without a feed, and while it is down (ms). */
  readonly pollMs: number;
  /** With the feed up, watched workspaces are still read once per this interval (ms). */
  readonly safetyPollMs: number;
  /** Where writes are announced to every instance, and heard from them; none: watchers poll. */
  readonly feed?: ChangeFeed | undefined;
  /** The timers of polls and of announcements sent again (systemTime). */
  readonly time?: TimeSource | undefined;
}

/** What a service needs to let its watchers follow one log: the watch they wait on, and what a committed write calls. */
export interface RevisionFollowers {
  readonly revisions: RevisionWatch;
  /** A write of `workspace` committed `revision` (changing `ids`, when told): this process's watchers wake at once, other instances' through the feed. */
  changed(workspace: string, revision: number, ids?: readonly string[]): void;
}

/** The revision watch and announcer of one log, as the route service and the asset service each hold them. */
export function revisionFollowers(store: RevisionSource, options: RevisionFollowersOptions): RevisionFollowers {
  const time = options.time ?? systemTime;
  const { feed, log } = options;
  const revisions = new RevisionWatch(store, { pollMs: options.pollMs, feed, safetyPollMs: options.safetyPollMs, timers: time, log });
  const announcer = feed && new Announcer(feed, DEFAULT_ANNOUNCE_RETRY_MS, time, log);
  return Object.freeze({
    revisions,
    changed(workspace: string, revision: number, ids?: readonly string[]): void {
      revisions.committed(workspace, revision);
      // The write has committed and stands: a message that cannot go out is sent again once the feed is back
      // (announcer.ts), and meanwhile other instances' watchers find the change by polling. The feed's adapter
      // counts and logs the failure.
      announcer?.announce(workspace, revision, ids);
    },
  });
}
