import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { assertId } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, MAX_PAGE_SIZE, pageSizeOf } from '../page-tokens.js';
import type { AssetChangeRecord } from '../ports/asset-change-log.js';
import type { AssetStore } from '../ports/asset-store.js';
import { assetNotFound } from './asset-errors.js';
import { toAsset } from './to-asset.js';
import type { AssetChange, AssetChangePage, AssetChangesSince, AssetHistoryInput } from './types.js';

/** Revisions `changesSince` reads at once unless told otherwise; a batch delete's revision always comes whole. */
export const DEFAULT_CHANGES_LIMIT = 100;

interface Deps {
  readonly assetStore: AssetStore;
  readonly cdnUrl: string;
}

/** The public view of a logged change: the asset as callers see it (`null` for a delete). */
export function toAssetChange(change: AssetChangeRecord, cdnUrl: string): AssetChange {
  const { type, revision, actor, assetId } = change;
  const base = {
    type,
    revision,
    time: new Date(change.time),
    actor,
    assetId,
    // Only on restores and purges, so plain changes look as they always did.
    ...(change.reason === undefined ? {} : { reason: change.reason }),
    ...(change.versionIds === undefined ? {} : { versionIds: Object.freeze([...change.versionIds]) }),
  };
  if (change.type === 'asset.deleted') return Object.freeze({ ...base, asset: null });
  const asset = toAsset(change.asset, cdnUrl);
  if (change.type === 'asset.replaced') return Object.freeze({ ...base, asset, previous: Object.freeze({ ...change.previous }) });
  return Object.freeze({ ...base, asset });
}

/** The workspace's asset revision: 0 before its first change. */
export async function assetRevision(deps: Deps, principal: Principal): Promise<number> {
  requireScope(principal, 'assets:read');
  return deps.assetStore.revision(principal.workspace);
}

/**
 * The changes after `sinceRevision`, ascending, at most `limit` revisions
 * (each whole); `reset` with the current revision when those changes are no
 * longer kept (or the workspace never had that revision): list again.
 */
export async function assetChangesSince(
  deps: Deps,
  principal: Principal,
  sinceRevision: number,
  limit = DEFAULT_CHANGES_LIMIT,
): Promise<AssetChangesSince> {
  requireScope(principal, 'assets:read');
  if (!Number.isSafeInteger(sinceRevision) || sinceRevision < 0) throw invalidArgument('sinceRevision', 'must be a whole number from 0');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw invalidArgument('limit', `must be a whole number of revisions from 1 to ${MAX_PAGE_SIZE}`);
  const { workspace } = principal;
  const changes = await deps.assetStore.changesSince(workspace, sinceRevision, limit);
  if (changes === undefined) return Object.freeze({ reset: true, revision: await deps.assetStore.revision(workspace) });
  return Object.freeze({ reset: false, changes: Object.freeze(changes.map((change) => toAssetChange(change, deps.cdnUrl))) });
}

/**
 * A page of an asset's kept changes, newest first, cut by revision (an
 * asset changes at most once per revision), so changes made meanwhile never
 * make a later page skip or repeat one. A deleted asset's history stays
 * readable while it is kept; an id with neither an asset nor a kept change
 * is `not_found`.
 */
export async function assetHistory(deps: Deps, principal: Principal, id: string, input: AssetHistoryInput): Promise<AssetChangePage> {
  requireScope(principal, 'assets:read');
  const assetId = assertId('asset', id);
  const limit = pageSizeOf(input.pageSize);
  const binding = bindingOf(principal.workspace, assetId, 'history');
  const before = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  // One more than asked: whether another page follows is known without a second query.
  const records = await deps.assetStore.history(principal.workspace, assetId, { before, limit: limit + 1 });
  if (records.length === 0 && before === undefined && !(await deps.assetStore.get(principal.workspace, assetId)))
    throw assetNotFound(assetId);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  return Object.freeze({
    changes: Object.freeze(page.map((change) => toAssetChange(change, deps.cdnUrl))),
    nextPageToken: records.length > limit && last ? encodePageToken([String(last.revision)], binding) : '',
  });
}

function cursorOf(token: string, binding: string): number {
  const [revision] = decodePageToken(token, binding, 1);
  const value = Number(revision);
  if (revision === undefined || !/^[1-9][0-9]{0,15}$/.test(revision) || !Number.isSafeInteger(value))
    throw invalidArgument('pageToken', 'is not a page token of this listing');
  return value;
}
