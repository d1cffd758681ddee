import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import type { RouteChange, RouteStore } from '../ports/route-store.js';
import { waitForChange, type ChangeWaitDeps } from '../changes/wait-for-change.js';
import { toRoute } from './route-view.js';
import type { RouteEvent, WatchRoutesOptions } from './types.js';

/** Changes read per store call while catching up. */
const CHANGE_BATCH = 500;

export interface WatchDeps extends ChangeWaitDeps {
  readonly store: RouteStore;
}

/**
 * The workspace's route table as events: a snapshot (or, from a known
 * revision, only what changed since), then every change in revision order.
 * When the history a watcher needs is gone (trimmed, or the revision is not
 * one this workspace ever had), a fresh snapshot takes its place, starting
 * with `reset`. Ends, without an error, when `signal` aborts.
 */
export async function* watchRoutes(deps: WatchDeps, principal: Principal, options: WatchRoutesOptions = {}): AsyncGenerator<RouteEvent> {
  requireScope(principal, 'routes:read');
  const since = options.sinceRevision ?? 0;
  if (!Number.isSafeInteger(since) || since < 0) throw invalidArgument('sinceRevision', 'must be a non-negative whole number');
  const { workspace } = principal;
  const signal = options.signal;
  let revision = since;
  let pending: RouteChange[] | undefined = since === 0 ? undefined : await deps.store.changesSince(workspace, since, CHANGE_BATCH);
  // Already current: say so at once, so the caller knows the watch is up (and at which revision).
  if (pending?.length === 0) yield { type: 'heartbeat', revision };

  while (!signal?.aborted) {
    if (pending === undefined) {
      const snapshot = await deps.store.snapshot(workspace);
      revision = snapshot.revision;
      yield { type: 'reset', revision };
      for (const record of snapshot.records) yield { type: 'upsert', revision, route: toRoute(record) };
      yield { type: 'synced', revision };
      pending = [];
    }
    // The store never splits a revision between reads: the next change tells whether this one ends its revision.
    for (const [i, change] of pending.entries()) {
      revision = change.revision;
      // `moreInRevision` only where true, so a revision of one change reads as before; literals, not spreads (route-apply-5000).
      if (pending[i + 1]?.revision === revision)
        yield change.kind === 'delete'
          ? { type: 'delete', revision, id: change.id, moreInRevision: true }
          : { type: 'upsert', revision, route: toRoute(change.after), moreInRevision: true };
      else
        yield change.kind === 'delete'
          ? { type: 'delete', revision, id: change.id }
          : { type: 'upsert', revision, route: toRoute(change.after) };
    }
    // A full batch: more are waiting; else wait for the next change, or send a heartbeat.
    if (pending.length < CHANGE_BATCH) {
      const moved = yield* waitForChange(deps, workspace, revision, signal);
      if (moved === undefined) return;
      if (!moved) {
        pending = [];
        continue;
      }
    }
    pending = await deps.store.changesSince(workspace, revision, CHANGE_BATCH);
  }
}
