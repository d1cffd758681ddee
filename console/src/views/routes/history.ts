// The route change log (GET /v1/routing/changes) as revisions, newest first.
// The log pages forward from a revision, so the history is read in windows of
// revisions counted back from the newest: (from, to], following page tokens
// until the window is read.
import type { RestRoute, RestRouteChange } from '@switchyard/client/web';
import type { Api } from '../../lib/api.js';

/** Revisions per window ("Show older revisions" reads the next). */
export const REVISIONS_PER_WINDOW = 20;
/** Changes per request: a window of small revisions in one request, a 1,000-route apply in a few. */
const CHANGES_PER_PAGE = 500;

export interface Revision {
  readonly revision: number;
  readonly time: string;
  readonly actor: string;
  /** The owners its changes were made for, "" (no owner) included. */
  readonly owners: readonly string[];
  readonly changes: readonly {
    readonly kind: RestRouteChange['kind'];
    readonly before: RestRoute | null;
    readonly after: RestRoute | null;
  }[];
}

/** The revisions after `from` up to `to`, newest first. */
export async function readRevisions(api: Api, from: number, to: number, signal?: AbortSignal): Promise<Revision[]> {
  const changes: RestRouteChange[] = [];
  let pageToken = '';
  do {
    signal?.throwIfAborted();
    const page = await api.listRouteChanges(
      pageToken ? { pageToken, pageSize: CHANGES_PER_PAGE } : { sinceRevision: from, pageSize: CHANGES_PER_PAGE },
    );
    changes.push(...page.changes.filter((change) => change.revision <= to));
    const last = page.changes.at(-1)?.revision ?? to;
    pageToken = last < to ? page.nextPageToken : '';
  } while (pageToken);
  return groupByRevision(changes).reverse();
}

/** Consecutive changes of one revision as one entry, oldest first as the log lists them. */
export function groupByRevision(changes: readonly RestRouteChange[]): Revision[] {
  const revisions: Revision[] = [];
  let current: { revision: number; time: string; actor: string; owners: string[]; changes: Revision['changes'][number][] } | undefined;
  for (const change of changes) {
    if (current?.revision !== change.revision) {
      current = { revision: change.revision, time: change.time, actor: change.actor, owners: [], changes: [] };
      revisions.push(current);
    }
    if (!current.owners.includes(change.owner)) current.owners.push(change.owner);
    current.changes.push({ kind: change.kind, before: change.before, after: change.after });
  }
  return revisions;
}
