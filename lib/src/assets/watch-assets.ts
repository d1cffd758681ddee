import { requireScope, type Principal } from '../auth/principal.js';
import { waitForChange, type ChangeWaitDeps } from '../changes/wait-for-change.js';
import { invalidArgument } from '../errors.js';
import type { AssetChangeRecord } from '../ports/asset-change-log.js';
import type { AssetStore } from '../ports/asset-store.js';
import { toAssetChange } from './asset-changes.js';
import type { AssetWatchEvent, WatchAssetsOptions } from './types.js';

/** Revisions read per store call while catching up (each whole). */
const REVISION_BATCH = 500;

export interface AssetWatchDeps extends ChangeWaitDeps {
  readonly assetStore: Pick<AssetStore, 'revision' | 'changesSince'>;
  readonly cdnUrl: string;
}

/**
 * The workspace's asset changes as events, in revision order: from now on
 * (first `synced` with the current revision) or after `sinceRevision` (at
 * once a `heartbeat` when nothing is missed; `reset` with the current
 * revision when the changes after it are no longer kept, then what follows
 * it). Ends, without an error, when `signal` aborts.
 */
export async function* watchAssets(
  deps: AssetWatchDeps,
  principal: Principal,
  options: WatchAssetsOptions = {},
): AsyncGenerator<AssetWatchEvent> {
  requireScope(principal, 'assets:read');
  const since = options.sinceRevision;
  if (since !== undefined && (!Number.isSafeInteger(since) || since < 0))
    throw invalidArgument('sinceRevision', 'must be a whole number from 0');
  const { workspace } = principal;
  const { signal } = options;
  const store = deps.assetStore;
  let revision = since ?? (await store.revision(workspace));
  let pending: AssetChangeRecord[] | undefined = since === undefined ? [] : await store.changesSince(workspace, since, REVISION_BATCH);
  if (since === undefined) yield { type: 'synced', revision };
  // Already current: say so at once, so the caller knows the watch is up (and at which revision).
  else if (pending?.length === 0) yield { type: 'heartbeat', revision };

  while (!signal?.aborted) {
    if (pending === undefined) {
      revision = await store.revision(workspace);
      yield { type: 'reset', revision };
      pending = [];
    }
    for (const change of pending) {
      revision = change.revision;
      yield { type: 'change', revision, change: toAssetChange(change, deps.cdnUrl) };
    }
    // A full batch: more are waiting; else wait for the next change, or send a heartbeat.
    if (revisionsIn(pending) < REVISION_BATCH) {
      const moved = yield* waitForChange(deps, workspace, revision, signal);
      if (moved === undefined) return;
      if (!moved) {
        pending = [];
        continue;
      }
    }
    pending = await store.changesSince(workspace, revision, REVISION_BATCH);
  }
}

function revisionsIn(changes: readonly AssetChangeRecord[]): number {
  return new Set(changes.map((change) => change.revision)).size;
}
