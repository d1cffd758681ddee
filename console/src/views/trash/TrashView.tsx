// The trash view (GET /v1/trash): the workspace's deleted assets, newest
// first, with who deleted them and when gc purges them; Restore brings one
// back with its id, Purge removes it for good after a confirmation. The asset
// watch keeps it current: a delete made anywhere joins it, a restore or purge
// made anywhere (gc's too) leaves it.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RestTrashedAsset } from '@switchyard/client/web';
import { errorText } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { formatBytes, formatShortDate } from '../../lib/format.js';
import { useOpenings, useViewApi } from '../../lib/hooks.js';
import { missingScope } from '../../lib/session.js';
import { Confirm } from '../../ui/Confirm.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { openLiveAssets } from '../assets/live-assets.js';

const PAGE_SIZE = 50;

/** What the console calls an asset: its name, or its id when it has none. */
const titleOf = (asset: RestTrashedAsset): string => asset.name || asset.id;

/** The entries of a page read again joined with those shown (later pages stay), newest id first as the server lists them. */
function merged(page: readonly RestTrashedAsset[], shown: readonly RestTrashedAsset[]): RestTrashedAsset[] {
  const fresh = new Set(page.map((entry) => entry.id));
  return [...page, ...shown.filter((entry) => !fresh.has(entry.id))].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

export function TrashView() {
  const { signal, api } = useViewApi();
  const readRefused = missingScope('assets:read');
  const writeRefused = missingScope('assets:write');
  const [entries, setEntries] = useState<readonly RestTrashedAsset[] | undefined>(undefined);
  const [nextPageToken, setNextPageToken] = useState('');
  const [reading, setReading] = useState(false);
  const [problem, setProblem] = useState('');
  const [purging, setPurging] = useState<RestTrashedAsset | undefined>(undefined);
  const [openings, opened] = useOpenings();
  const heading = useRef<HTMLHeadingElement>(null);

  async function read(pageToken = '') {
    setReading(true);
    try {
      const page = await api.listTrash({ pageSize: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) });
      setEntries((shown) => (shown ? merged(page.assets, shown) : page.assets));
      // After the first page read again (a change heard), "Show more" may read a page shown already: the merge drops repeats.
      setNextPageToken(page.nextPageToken);
      setProblem('');
    } catch (error) {
      setProblem(errorText(error, 'Reading the trash') ?? '');
    } finally {
      setReading(false);
    }
  }
  const forget = (id: string) => setEntries((shown) => shown?.filter((entry) => entry.id !== id));

  const live = useMemo(() => (readRefused ? undefined : openLiveAssets(signal)), []);
  useEffect(() => {
    if (!live) return;
    const offChange = live.onChange((change) => {
      // Out of the trash: restored (created again) or purged (deleted for good).
      if (change.reason === 'restore' || change.reason === 'purge') forget(change.assetId);
      // Into it: read the first page again (the entry carries who deleted it and when it is purged).
      if (change.type === 'asset.deleted' && change.reason !== 'purge') void read();
    });
    const offReset = live.onReset(() => void read());
    // Read once the watch listens, so no delete between the two is missed.
    void live.listening.then(() => read());
    return () => {
      offChange();
      offReset();
      live.close();
    };
  }, []);

  async function restore(entry: RestTrashedAsset) {
    try {
      await api.restoreAsset(entry.id);
      forget(entry.id);
      announce(`Restored ${titleOf(entry)}: it is back in the assets with its id; make new signed links to share it.`);
      heading.current?.focus();
    } catch (error) {
      const text = errorText(error, 'Restoring');
      if (text) announceError(text);
    }
  }

  async function purge(entry: RestTrashedAsset): Promise<boolean> {
    try {
      await api.purgeAsset(entry.id);
      forget(entry.id);
      setPurging(undefined);
      announce(`Purged ${titleOf(entry)} for good.`);
      return true;
    } catch (error) {
      const text = errorText(error, 'Purging');
      if (text) announceError(text);
      return false;
    }
  }

  return (
    <div class="view trash-view">
      <div class="view-head">
        <h1 tabIndex={-1} ref={heading}>
          Trash
        </h1>
      </div>
      <p class="help">
        Deleted assets stay here for the workspace's retention, then <code>switchyard gc</code> purges them with their versions. A restored
        asset keeps its id, name, label, visibility and versions; signed links made before its delete stay refused.
      </p>
      {readRefused && <p class="scope-note">{readRefused}</p>}
      {problem && <p class="callout callout-error">{problem}</p>}
      {!readRefused && entries === undefined && !problem && <p class="loading">Loading…</p>}
      {entries !== undefined && entries.length === 0 && <p class="muted">The trash is empty.</p>}
      {entries !== undefined && entries.length > 0 && (
        <div class="panel">
          <table class="trash-table">
            <caption class="visually-hidden">Deleted assets</caption>
            <thead>
              <tr>
                <th scope="col">Asset</th>
                <th scope="col">Type</th>
                <th scope="col">Size</th>
                <th scope="col">Deleted</th>
                <th scope="col">Purged after</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id} data-asset-id={entry.id}>
                  <th scope="row" class="break">
                    {titleOf(entry)}
                  </th>
                  <td>{entry.type}</td>
                  <td>{formatBytes(entry.size)}</td>
                  <td>
                    <time dateTime={entry.deletedAt}>{formatShortDate(entry.deletedAt)}</time> by{' '}
                    <span class="mono">{entry.deletedBy || 'unknown'}</span>
                  </td>
                  <td>
                    <time dateTime={entry.purgeAt}>{formatShortDate(entry.purgeAt)}</time>
                  </td>
                  <td class="row-actions">
                    <button
                      type="button"
                      aria-label={`Restore ${titleOf(entry)}`}
                      disabled={!!writeRefused}
                      aria-describedby={writeRefused ? 'trash-scope' : undefined}
                      onClick={() => void restore(entry)}
                    >
                      Restore
                    </button>{' '}
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Purge ${titleOf(entry)}`}
                      disabled={!!writeRefused}
                      aria-describedby={writeRefused ? 'trash-scope' : undefined}
                      onClick={() => (opened(), setPurging(entry))}
                    >
                      Purge
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <ScopeNote id="trash-scope" reason={writeRefused} />
          {nextPageToken && (
            <button type="button" disabled={reading} onClick={() => void read(nextPageToken)}>
              {reading ? 'Reading…' : 'Show more'}
            </button>
          )}
        </div>
      )}
      {purging && (
        <Confirm
          key={openings}
          title={`Purge ${titleOf(purging)}?`}
          confirmLabel="Purge"
          onClose={() => setPurging(undefined)}
          onConfirm={() => purge(purging)}
          fallbackFocus={() => heading.current}
        >
          <p>Its file, its versions and their bytes are removed for good. It cannot be restored afterwards.</p>
        </Confirm>
      )}
    </div>
  );
}
