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

/**
 * Waits, at most one heartbeat interval, for `workspace` to move past
 * `revision`, yielding a heartbeat when the interval passed without a change.
 * Returns whether it moved (there is something to read), or `undefined` when
 * `signal` aborted (the stream ends). Nothing moved means nothing to read: an
 * idle watch costs the store no query per heartbeat.
 */
export async function* waitForChange(
  deps: ChangeWaitDeps,
  workspace: string,
  revision: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<{ readonly type: 'heartbeat'; readonly revision: number }, boolean | undefined> {
  const before = deps.clock.now().getTime();
  const moved = await deps.revisions.wait(workspace, revision, deps.heartbeatMs, signal);
  if (signal?.aborted) return undefined;
  if (deps.clock.now().getTime() - before >= deps.heartbeatMs) yield { type: 'heartbeat', revision };
  return moved;
}
