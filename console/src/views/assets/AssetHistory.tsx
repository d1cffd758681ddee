// An asset's history in its detail panel (GET /v1/assets/{id}/history):
// what happened to it, when and by whom, newest first; "Show more" reads the
// next page, and a change heard from the watch brings the newest entries in
// on top (the pages already shown stay).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RestAssetChange } from '@switchyard/client/web';
import { errorText, type Api, type Asset } from '../../lib/api.js';
import { formatBytes, formatDate } from '../../lib/format.js';

const PAGE_SIZE = 10;

export interface AssetHistoryProps {
  readonly assetId: string;
  readonly api: Api;
  /** The latest change heard for this asset: the history reads its first page again. */
  readonly lastChange: RestAssetChange | null;
}

export function AssetHistory({ assetId, api, lastChange }: AssetHistoryProps) {
  const [changes, setChanges] = useState<readonly RestAssetChange[]>([]);
  const [nextPageToken, setNextPageToken] = useState('');
  const [state, setState] = useState<'loading' | 'idle' | 'more'>('loading');
  const [problem, setProblem] = useState('');
  const loaded = useRef(false);

  // The first page, on opening and after each change: entries newer than those shown go on top.
  useEffect(() => {
    let live = true;
    api.listAssetChanges(assetId, { pageSize: PAGE_SIZE }).then(
      (page) => {
        if (!live) return;
        if (!loaded.current) {
          loaded.current = true;
          setChanges(page.changes);
          setNextPageToken(page.nextPageToken);
        } else
          setChanges((shown) => {
            const newest = shown[0]?.revision ?? -1;
            return [...page.changes.filter((change) => change.revision > newest), ...shown];
          });
        setProblem('');
        setState('idle');
      },
      (error: unknown) => {
        if (!live) return;
        setProblem(errorText(error, 'Reading the history') ?? '');
        setState('idle');
      },
    );
    return () => void (live = false);
  }, [assetId, lastChange]);

  async function showMore() {
    setState('more');
    try {
      const page = await api.listAssetChanges(assetId, { pageSize: PAGE_SIZE, pageToken: nextPageToken });
      setChanges((shown) => {
        const known = new Set(shown.map((change) => change.revision));
        return [...shown, ...page.changes.filter((change) => !known.has(change.revision))];
      });
      setNextPageToken(page.nextPageToken);
      setProblem('');
    } catch (error) {
      setProblem(errorText(error, 'Reading more of the history') ?? '');
    } finally {
      setState('idle');
    }
  }

  return (
    <section class="detail-section" aria-labelledby="history-title">
      <h3 id="history-title">History</h3>
      {state === 'loading' && changes.length === 0 && <p class="muted">Reading the history…</p>}
      {state !== 'loading' && changes.length === 0 && !problem && <p class="muted">No changes are recorded for this asset.</p>}
      {changes.length > 0 && (
        <ol class="history" aria-labelledby="history-title">
          {changes.map((change, index) => (
            <li key={change.revision}>
              <span class="history-what">{describe(change, changes[index + 1])}</span>
              <span class="history-when">
                <time dateTime={change.time}>{formatDate(change.time)}</time> by <span class="mono">{change.actor || 'unknown'}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
      {problem && <p class="callout callout-error">{problem}</p>}
      {nextPageToken && (
        <button type="button" disabled={state === 'more'} onClick={() => void showMore()}>
          {state === 'more' ? 'Reading…' : 'Show more'}
        </button>
      )}
    </section>
  );
}

/** The change in words; for an edit, what it changed when the entry before it is shown. */
function describe(change: RestAssetChange, before: RestAssetChange | undefined): string {
  switch (change.type) {
    case 'asset.created':
      return change.reason === 'restore' ? 'Restored from the trash' : 'Uploaded';
    case 'asset.deleted':
      return change.reason === 'purge' ? 'Purged' : 'Deleted';
    case 'asset.replaced': {
      const what = change.reason === 'restore' ? 'Version restored' : 'File replaced';
      return change.previous ? `${what} (was ${change.previous.type}, ${formatBytes(change.previous.size)})` : what;
    }
    default: {
      if (change.reason === 'purge') return `Old versions purged (${change.versionIds?.length ?? 0})`;
      const after = change.asset as Asset | null;
      const prior = before?.asset as Asset | null | undefined;
      if (!after || !prior) return 'Changed';
      const what: string[] = [];
      if ((after.name ?? '') !== (prior.name ?? '')) what.push(after.name ? `renamed to “${after.name}”` : 'name cleared');
      if (after.label !== prior.label) what.push(after.label ? `label set to “${after.label}”` : 'label cleared');
      if (after.visibility !== prior.visibility) what.push(`made ${after.visibility}`);
      if (what.length === 0) return 'Changed (signed links revoked, or saved unchanged)';
      const text = what.join(', ');
      return text[0]!.toUpperCase() + text.slice(1);
    }
  }
}
