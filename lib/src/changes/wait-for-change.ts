import type { Clock } from '../clock.js';
import type { RevisionWatch } from '../routes/revision-watch.js';

/** What a watch stream waits with between its events. */
export interface ChangeWaitDeps {
  readonly revisions: RevisionWatch;
  /** A heartbeat after this long without another event. */
  readonly heartbeatMs: number;
  /** The clock a heartbeat's interval is measured on: the one the revision watch's timers run on. */
  readonly clock: Clock;
}

export interface ChangeWait {
  /** The workspace moved past the revision waited on: there is something to read. */
  readonly moved: boolean;
  /** A heartbeat is due: `heartbeatMs` passed without an event. */
  readonly heartbeat: boolean;
}

/**
 * Waits, at most one heartbeat interval, for `workspace` to move past
 * `revision`. Resolves `undefined` when `signal` aborted (the stream ends).
 * Nothing moved means nothing to read: an idle watch costs the store no
 * query per heartbeat.
 */
export async function waitForChange(
  deps: ChangeWaitDeps,
  workspace: string,
  revision: number,
  signal: AbortSignal | undefined,
): Promise<ChangeWait | undefined> {
  const before = deps.clock.now().getTime();
  const moved = await deps.revisions.wait(workspace, revision, deps.heartbeatMs, signal);
  if (signal?.aborted) return undefined;
  return { moved, heartbeat: deps.clock.now().getTime() - before >= deps.heartbeatMs };
}
