/**
 * A workspace's route history, read from the change log the stores keep
 * (the last `ROUTE_HISTORY` revisions): the changes after a revision, page by
 * page, and the table as it was at an earlier revision, rebuilt by undoing
 * the changes since, newest first. A revision older than the kept history is
 * `invalid_argument` saying how far back it goes.
 */
import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { RouteChange, RouteRecord, RouteStore } from '../ports/route-store.js';
import { toRoute } from './route-view.js';
import type { RouteChangeEntry, RouteChangeListInput, RouteChangePage } from './types.js';

/** Changes read per store call while rebuilding an earlier table. */
const REPLAY_BATCH = 5_000;

/** The caller's revision: a whole number, 0 or more (`field` names it in the error). */
export function parseRevision(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidArgument(field, 'must be a non-negative whole number');
  return value;
}

/** A page of the changes after `sinceRevision`, oldest first, whole revisions only. */
export async function listRouteChanges(store: RouteStore, principal: Principal, input: RouteChangeListInput): Promise<RouteChangePage> {
  requireScope(principal, 'routes:read');
  const limit = pageSizeOf(input.pageSize);
  const { workspace } = principal;
  const binding = bindingOf('route-changes', workspace);
  const since = input.pageToken ? revisionOfToken(input.pageToken, binding) : parseRevision(input.sinceRevision ?? 0, 'sinceRevision');
  const current = await store.revision(workspace);
  if (since > current) throw invalidArgument('sinceRevision', `is ahead of the route table, which is at revision ${current}`);
  const field = input.pageToken ? 'pageToken' : 'sinceRevision';
  let changes = await store.changesSince(workspace, since, limit);
  // 0 (the default) is "from the oldest kept": once the log is trimmed, that is where the kept history starts.
  if (changes === undefined && since === 0 && !input.pageToken)
    changes = await store.changesSince(workspace, await historyStart(store, workspace, 0), limit);
  if (changes === undefined) throw await beyondHistory(store, workspace, since, field);
  const last = changes.at(-1)?.revision;
  const nextPageToken = last !== undefined && last < current ? encodePageToken([String(last)], binding) : '';
  return { changes: changes.map(toChangeEntry), nextPageToken };
}

/** The workspace's table as it was at `revision` (not after the current one), with the current revision it was rebuilt from. */
export async function tableAt(
  store: RouteStore,
  workspace: string,
  revision: number,
  field: string,
): Promise<{ readonly records: RouteRecord[]; readonly current: number }> {
  const snapshot = await store.snapshot(workspace);
  if (revision > snapshot.revision) throw invalidArgument(field, `is ahead of the route table, which is at revision ${snapshot.revision}`);
  const table = new Map(snapshot.records.map((record) => [record.id, record]));
  const undo: RouteChange[] = [];
  for (let from = revision; from < snapshot.revision; ) {
    const changes = await store.changesSince(workspace, from, REPLAY_BATCH);
    if (changes === undefined || changes.length === 0) throw await beyondHistory(store, workspace, revision, field);
    for (const change of changes) if (change.revision <= snapshot.revision) undo.push(change);
    from = changes.at(-1)!.revision;
  }
  for (const change of undo.reverse()) {
    if (change.kind !== 'create' && change.before === undefined)
      throw invalidArgument(
        field,
        `revision ${revision} cannot be rebuilt: change ${change.revision} was logged without the route before it`,
      );
    if (change.kind !== 'create') table.set(change.id, change.before!);
    else table.delete(change.id);
  }
  const records = [...table.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  return { records, current: snapshot.revision };
}

/** The oldest revision, from `from` on, whose later changes are all kept (found in a few probes of the log). */
async function historyStart(store: RouteStore, workspace: string, from: number): Promise<number> {
  if ((await store.changesSince(workspace, from, 1)) !== undefined) return from;
  let low = from + 1;
  let high = await store.revision(workspace);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await store.changesSince(workspace, middle, 1)) === undefined) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A revision older than the kept history: `invalid_argument` saying how far back it goes. */
async function beyondHistory(store: RouteStore, workspace: string, revision: number, field: string) {
  const start = await historyStart(store, workspace, revision);
  return invalidArgument(
    field,
    `revision ${revision} is older than the kept route history, which goes back to revision ${start} (ROUTE_HISTORY keeps the last revisions)`,
  );
}

function toChangeEntry(change: RouteChange): RouteChangeEntry {
  return Object.freeze({
    revision: change.revision,
    time: new Date(change.time.getTime()),
    actor: change.actor,
    owner: change.owner,
    kind: change.kind,
    before: change.before && toRoute(change.before),
    after: change.after && toRoute(change.after),
  });
}

function revisionOfToken(token: string, binding: string): number {
  const [revision] = decodePageToken(token, binding, 1);
  if (!/^\d{1,15}$/.test(revision ?? '')) throw invalidArgument('pageToken', 'is not a page token of this listing');
  return Number(revision);
}
